"""Stage 6, figures: the public objects (Drawable, Figure, Composite, HeadsFigure) and `figure()`.

figure.py holds Drawable and Figure; single.py draws one head (full, scores, mask map); heads.py one
panel per query head; composite.py composes panels; api.py is `figure()`, which dispatches to them;
from_arguments.py builds what spec arguments describe; options.py is the one table of figure options;
files.py writes files atomically (`Figure.save`; io.atomic re-exports it).
"""
