"""The one redactor: what coder prints or writes (stdout, stderr, `--json`, reports, traces,
JUnit, patches, error messages) passes through a `Redactor` first.

It hides the secret values it is given (the API key, the values of secret-looking
environment variables and of the OTLP exporter's headers) as written, JSON-escaped and
URL-encoded, and every string shaped like a key (`sk-...`, `Bearer ...`, GitHub tokens)
even when nobody named its value. A secret cut short where a long text was abbreviated
("live-9f8e…") is hidden too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus, unquote

from sandbox import secret_values

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
"""Shorter values are too likely to occur by chance in ordinary text to be hidden."""
MIN_CUT_LENGTH = 4
"""The shortest start of a secret hidden before a cut ("…")."""
CUT = "…"

# Key shapes worth hiding even when nobody told us the value.
_KEY_SHAPES = [
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"\b(Bearer\s+)[A-Za-z0-9._\-~+/=]{8,}", re.IGNORECASE), r"\1" + REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}"), REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{16,}"), REDACTED),
]
_SHAPE_HINT = re.compile(r"sk-|bearer|gh[pousr]_|github_pat_", re.IGNORECASE)
"""What every key shape contains: text without it needs none of their substitutions
(most text has none, and every progress line and trace field is redacted)."""


class Redactor:
    """Replaces secrets with `[REDACTED]` in text and in JSON-like data."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        known = {secret for secret in secrets if secret and len(secret) >= MIN_SECRET_LENGTH}
        self.secrets = sorted(known, key=lambda secret: (-len(secret), secret))
        """The values hidden, longest first."""
        forms = sorted({form for secret in known for form in _written_forms(secret)}, key=len)
        # Longest first, so that a secret containing another is hidden whole.
        self._known = re.compile("|".join(map(re.escape, reversed(forms)))) if forms else None
        starts = {form[:end] for form in forms for end in range(MIN_CUT_LENGTH, len(form))}
        cut = "|".join(map(re.escape, sorted(starts, key=len, reverse=True)))
        self._cut = re.compile(f"(?:{cut})(?={CUT})") if starts else None

    @classmethod
    def from_environment(
        cls, *keys: str | None, environ: Mapping[str, str] | None = None
    ) -> Redactor:
        """The values of secret-looking variables of `environ` (default: os.environ), of
        its OTLP exporter's headers, and `keys` (the configured API key)."""
        env = os.environ if environ is None else environ
        return cls([*secret_values(env), *otlp_header_values(env), *keys])

    def __call__(self, value: Any) -> Any:
        """A copy of `value` (text, or lists and mappings of it) with every secret hidden;
        anything else is turned into text first, as it would be when written."""
        if isinstance(value, str):
            return self.text(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, Mapping):
            return {self.text(str(key)): self(item) for key, item in value.items()}
        if isinstance(value, list | tuple | set | frozenset):
            return [self(item) for item in value]
        return self.text(str(value))

    def text(self, text: str) -> str:
        """`text` with each known secret and each key-shaped string hidden."""
        if self._known is not None:
            text = self._known.sub(REDACTED, text)
        if self._cut is not None and CUT in text:
            text = self._cut.sub(REDACTED, text)
        if _SHAPE_HINT.search(text) is None:
            return text
        for pattern, replacement in _KEY_SHAPES:
            text = pattern.sub(replacement, text)
        return text

    def count(self, text: str) -> int:
        """How often a known secret occurs in `text`, in any written form (key shapes
        are not counted: a test may well hold a made-up `sk-...` literal)."""
        return 0 if self._known is None else len(self._known.findall(text))


OTLP_HEADERS = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")


def otlp_header_values(environ: Mapping[str, str]) -> list[str]:
    """The values of the OpenTelemetry exporter's headers (`name=value,...`, values
    URL-encoded): often a tracing backend's key, under a name that does not look secret."""
    values = []
    for name in OTLP_HEADERS:
        for pair in environ.get(name, "").split(","):
            value = pair.partition("=")[2].strip()
            values += [value, unquote(value)]
    return [value for value in values if value]


def _written_forms(secret: str) -> set[str]:
    """`secret` as it may appear in output: as is, JSON-escaped, URL-encoded."""
    escaped = json.dumps(secret)[1:-1]
    forms = {
        secret,
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(secret, ensure_ascii=False)[1:-1],
    }
    for encoded in (quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret)):
        forms |= {encoded, re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), encoded)}
    return forms
