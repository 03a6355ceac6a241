import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import settings

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"
SVG_NS = "{http://www.w3.org/2000/svg}"

settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def svg_text(svg):
    """The SVG's text nodes, concatenated in document order."""
    return "".join(ET.fromstring(svg).itertext())


def svg_root(svg):
    return ET.fromstring(svg)


@pytest.fixture
def seed_line():
    return (DATA / "seed-figure-text.txt").read_text(encoding="utf-8").rstrip("\n")
