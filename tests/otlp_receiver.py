"""A real OTLP/HTTP trace receiver on 127.0.0.1: it accepts `POST /v1/traces`, keeps the
raw bodies, and decodes them with opentelemetry-proto's ExportTraceServiceRequest.

    with OTLPReceiver() as receiver:
        ... OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint ...
        spans = receiver.spans()    # name -> [Span], attributes as a plain dict
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.loopback import LoopbackServer


@dataclass
class Span:
    """One received span, its ids as hex and its attributes as Python values."""

    name: str
    span_id: str
    parent_id: str
    trace_id: str
    kind: int
    attributes: dict[str, Any]
    status_code: int
    """0 unset, 1 ok, 2 error."""
    start_ns: int
    end_ns: int
    events: list[str] = field(default_factory=list)


class OTLPReceiver(LoopbackServer):
    """Collects what exporters POST to /v1/traces (bodies, headers, decoded spans)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.requests: list[ExportTraceServiceRequest] = []
        super().__init__(self._handler())

    @property
    def endpoint(self) -> str:
        """The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds /v1/traces)."""
        return f"http://127.0.0.1:{self.port}"

    def spans(self) -> list[Span]:
        return [span for request in self.requests for span in _spans(request)]

    def resource(self) -> dict[str, Any]:
        """The attributes of the first resource that sent spans."""
        return _attributes(self.requests[0].resource_spans[0].resource.attributes)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    raw = gzip.decompress(raw)
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(raw)
                receiver.bodies.append(raw)
                receiver.headers.append(dict(self.headers.items()))
                receiver.requests.append(request)
                body = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _spans(request: ExportTraceServiceRequest) -> list[Span]:
    found = []
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                found.append(
                    Span(
                        name=span.name,
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        trace_id=span.trace_id.hex(),
                        kind=span.kind,
                        attributes=_attributes(span.attributes),
                        status_code=span.status.code,
                        start_ns=span.start_time_unix_nano,
                        end_ns=span.end_time_unix_nano,
                        events=[event.name for event in span.events],
                    )
                )
    return found


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, which) if which else None
