"""Stage 10, the command line: `attnviz render|page|walkthrough|slides|gallery|model|css`, and batches."""

from .commands import main

__all__ = ["main"]
