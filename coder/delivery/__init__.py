"""coder.delivery."""
