"""coder.builtin.gen."""
