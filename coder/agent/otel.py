"""OpenTelemetry export of runs, off unless the standard variables ask for it.

`OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns it on;
`OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keep it off. Only then is the
SDK imported (the `otel` extra): a run without the variables pays nothing. The SDK's
OTLP/HTTP exporter reads the rest itself (headers, timeout, compression, certificates),
and the resource `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. What the spans say
is in coder/agent/spans.py; `finish()` ends what an interrupt left open and flushes.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from coder import __version__
from coder.agent.memory import abbreviate
from coder.agent.trace import TraceObserver
from coder.redaction import Redactor

ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""`true`: spans also carry the model's replies and tool arguments and results, redacted."""
PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
NOT_INSTALLED = (
    "{name} is set but the OpenTelemetry SDK is not installed, so no trace is exported: "
    "install coder with the otel extra (pip install 'coder[otel]')"
)
ONLY_HTTP = (
    "{name}={value}: coder exports traces over OTLP/HTTP (http/protobuf) only; point "
    "OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)"
)
NOT_SENT = (
    "traces could not be sent to the OTLP collector ({reason}); is it running, and does "
    "OTEL_EXPORTER_OTLP_ENDPOINT name its HTTP port (usually 4318)? The run goes on"
)

_lock = threading.Lock()
_provider: Any = None
"""The SDK's TracerProvider, made by the first run that exports."""
_open: list[Any] = []
"""The span recorders of runs not closed yet."""
_said: set[str] = set()
"""Warnings given (once a process)."""
_registered = False
"""Whether `finish` runs at exit (registered with the first provider)."""


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """True when the environment asks for traces to be exported."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(env.get(name, "").strip() for name in ENDPOINTS)


def run_spans(
    run_id: str, command: str, model: str, warn: Callable[[str], None]
) -> list[TraceObserver]:
    """The observer that turns the run's trace events into spans: none unless exporting."""
    if not wanted():
        return []
    tracer = _tracer(warn)
    if tracer is None:
        return []
    from coder.agent.spans import SpanRecorder

    capture = os.environ.get(CAPTURE, "").strip().lower() == "true"
    recorder = SpanRecorder(tracer, run_id, command, model, capture=capture)
    with _lock:
        _open[:] = [*(other for other in _open if not other.closed), recorder]
    return [recorder]


def finish(status: str = "interrupted") -> None:
    """End the spans of runs still open (with `status`) and send every span; the next
    run starts a new provider. Nothing happens when nothing was exported."""
    global _provider
    with _lock:
        provider, _provider = _provider, None
        left = list(_open)
        _open.clear()
    if provider is None:
        return
    with contextlib.suppress(Exception, KeyboardInterrupt):  # a second Ctrl-C stops waiting
        for recorder in left:
            recorder.close({"status": status, "error": f"the run ended early ({status})"})
        provider.shutdown()


def _tracer(warn: Callable[[str], None]) -> Any:
    """The tracer of the process's provider (made on first use), or None without the SDK."""
    global _provider
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        _say_once(warn, NOT_INSTALLED.format(name=_endpoint_variable()))
        return None
    for name in PROTOCOLS:
        value = os.environ.get(name, "").strip()
        if value and value != "http/protobuf":
            _say_once(warn, ONLY_HTTP.format(name=name, value=value))
    with _lock:
        if _provider is None:
            resource = Resource.create({"service.version": __version__})
            if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
                resource = resource.merge(Resource({"service.name": "coder"}))
            _provider = TracerProvider(resource=resource)
            _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            _quiet_sdk(warn)
            _at_exit()
        return _provider.get_tracer("coder", __version__)


class _ExportTrouble(logging.Handler):
    """The SDK's complaints (a collector that is down or refuses), said once in one line
    instead of a log record for each retry."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self._warn: Callable[[str], None] | None = warn

    def emit(self, record: logging.LogRecord) -> None:
        warn, self._warn = self._warn, None
        if warn is not None:
            reason = abbreviate(record.getMessage().splitlines()[0], 160)
            warn(NOT_SENT.format(reason=Redactor.from_environment().text(reason)))


def _quiet_sdk(warn: Callable[[str], None]) -> None:
    logger = logging.getLogger("opentelemetry")
    logger.handlers = [_ExportTrouble(warn)]
    logger.propagate = False


def _at_exit() -> None:
    global _registered
    if not _registered:
        atexit.register(finish)
        _registered = True


def _endpoint_variable() -> str:
    return next((name for name in ENDPOINTS if os.environ.get(name, "").strip()), ENDPOINTS[1])


def _say_once(warn: Callable[[str], None], message: str) -> None:
    if message not in _said:
        _said.add(message)
        warn(message)
