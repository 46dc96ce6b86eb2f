"""tools.harness."""
