"""sandbox.docker.sandbox."""
