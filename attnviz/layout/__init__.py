"""Stage 4, layout: the words placed as boxes and text lines (items, the full figure, the mask
map, panels), measured with the bundled fonts; no colours, no output format."""
