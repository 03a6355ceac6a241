"""Stage 6, figures: the public objects (Drawable, Figure, Composite, HeadsFigure) and `figure()`."""
