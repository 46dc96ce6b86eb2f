"""Docker's image reference grammar (distribution/reference), checked on the host, so a
bad `--image` is one line before any work rather than an engine error halfway."""

from __future__ import annotations

import re

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_COMPONENT = rf"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(
    rf"^(?P<name>(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*)(?::{_TAG})?(?:@{_DIGEST})?$"
)
_IMAGE_ID = re.compile(r"^(?:sha256:)?[0-9a-f]{12,64}$")
_MAX_NAME = 255


def image_reference_problem(image: str) -> str | None:
    """Why `image` is not a name Docker accepts (one line naming the fix), or None."""
    if _IMAGE_ID.match(image):
        return None
    match = _REFERENCE.match(image)
    if match is None:
        hint = " (repository names are lowercase)" if image.lower() != image else ""
        return (
            f"--image {image!r} is not a valid Docker image name{hint}; use a reference "
            "such as coder-sandbox:latest or registry.example.com/team/image:tag"
        )
    if len(match.group("name")) > _MAX_NAME:
        return f"--image {image[:40]!r}...: the repository name is over {_MAX_NAME} characters"
    return None
