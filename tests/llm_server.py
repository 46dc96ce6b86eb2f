"""A real OpenAI-compatible HTTP server on 127.0.0.1 for testing model clients.

Each request to `/v1/chat/completions` takes the next scripted behaviour from a queue:

    server.script(reply("hi"), status(429, headers={"Retry-After": "2"}), not_json())

and every request is recorded (path, headers, JSON body) in `server.requests`.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Behaviour:
    """One response: status, headers, body (bytes sent as is, else JSON) and a delay first."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any


def reply(
    text: str | None = "",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, int] | None = None,
) -> Behaviour:
    """A normal completion; `tool_calls` in the OpenAI wire shape."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return Behaviour(body=body)


def tool_call(name: str, arguments: Any, call_id: str | None = "call_a") -> dict[str, Any]:
    """A tool call in the wire shape; `arguments` is sent exactly as given."""
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return call


def status(code: int, body: Any = None, headers: dict[str, str] | None = None) -> Behaviour:
    return Behaviour(status=code, body=body, headers=headers or {})


def slow(seconds: float) -> Behaviour:
    """A reply that arrives only after `seconds` (longer than the client's timeout)."""
    late = reply("too late")
    late.delay = seconds
    return late


def not_json() -> Behaviour:
    return Behaviour(body=b"<html>502 Bad Gateway</html>", headers={"Content-Type": "text/html"})


def empty_choices() -> Behaviour:
    return Behaviour(body={"id": "chatcmpl-test", "choices": []})


class LLMServer:
    """Serves scripted behaviours until closed; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        # Join handler threads on close so none outlives the test.
        self._httpd.daemon_threads = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def script(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    def __enter__(self) -> LLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()  # wakes slow handlers early
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def _next(self, received: Received) -> Behaviour:
        with self._lock:
            self.requests.append(received)
            if received.path != "/v1/chat/completions":
                return status(404, {"error": {"message": f"no route {received.path}"}})
            if not self._queue:
                # 418 is a non-retried 4xx: the client fails at once and the test says why.
                return status(418, {"error": {"message": "llm_server: no behaviour left"}})
            return self._queue.popleft()


def _make_handler(server: LLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            headers = {key.lower(): value for key, value in self.headers.items()}
            behaviour = server._next(Received(self.path, headers, body))
            if behaviour.delay and server._stopping.wait(behaviour.delay):
                return
            self._respond(behaviour)

        def _respond(self, behaviour: Behaviour) -> None:
            data = behaviour.body
            if not isinstance(data, bytes):
                data = b"" if data is None else json.dumps(data).encode()
            try:
                self.send_response(behaviour.status)
                headers = {"Content-Type": "application/json", **behaviour.headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
