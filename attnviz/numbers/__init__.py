"""Stage 1, numbers: exact rationals, surds (exact square roots) and the one place that rounds."""
