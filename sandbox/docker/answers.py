"""Why a Docker engine did not answer, in the system's own words and one line."""

from __future__ import annotations

import ssl


def first_line(error: BaseException) -> str:
    """Why the engine did not answer, whole and short: the system's own words from the
    deepest OSError (docker-py nests it three wrappers down, urllib3 in `reason` or args)."""
    cause: BaseException | None = error
    root: OSError | None = None
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.strerror:
            root = cause
        inner = [a for a in cause.args[:1] if isinstance(a, BaseException)]
        cause = (
            cause.__cause__
            or cause.__context__
            or getattr(cause, "reason", None)
            or (inner[0] if inner else None)
        )
        cause = cause if isinstance(cause, BaseException) else None
    if _refused_client_certificate(root):
        return "the engine ended the TLS handshake: it does not accept your client certificate"
    if root is not None:
        return str(root.strerror)
    text = str(error).strip().splitlines()
    return (
        (text[0] if len(text[0]) <= 200 else text[0][:199] + "…") if text else type(error).__name__
    )


_CLIENT_REFUSED = {
    "SSLV3_ALERT_BAD_CERTIFICATE",
    "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
    "TLSV1_ALERT_UNKNOWN_CA",
    "TLSV13_ALERT_CERTIFICATE_REQUIRED",
}
"""Alerts the engine sends when it refuses the client's certificate (its own check of
the engine's certificate fails locally, as CERTIFICATE_VERIFY_FAILED)."""


def _refused_client_certificate(root: OSError | None) -> bool:
    """The engine ended the handshake (TLS 1.3 may close it before or after its alert,
    depending on timing) or sent an alert about the client's certificate."""
    if isinstance(root, ssl.SSLEOFError):
        return True
    return isinstance(root, ssl.SSLError) and getattr(root, "reason", "") in _CLIENT_REFUSED
