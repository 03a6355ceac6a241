"""Stage 5, render: one painter interface that paints a layout, and its backends (SVG, TikZ,
PowerPoint), with themes, fonts, TeX and XML escaping, and raster export."""
