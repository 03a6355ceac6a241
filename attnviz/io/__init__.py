"""Stage 8, io: reading specs (screened before parsing) and writing files atomically."""
