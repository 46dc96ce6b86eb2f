"""coder.builtin.repair."""
