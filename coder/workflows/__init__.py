"""What users run: `run` (the dev assistant); `fix` and `gen` build on the same pieces."""
