"""The builtin engine: deterministic repairs of mechanical test breakages, no model needed."""
