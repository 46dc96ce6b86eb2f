"""What an engine saw of a run, asked at its own socket, for the tests that reach it
another way (tcp with TLS, ssh)."""

from __future__ import annotations

import datetime
import socket

from sandbox.docker import RUN_LABEL, connect


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_actions(engine: str, run_id: str, since: datetime.datetime) -> list[str]:
    """The container events of run `run_id` on `engine` since `since` (an engine keeps
    its last 256 events: a busy one may have dropped the first)."""
    client = connect(timeout=10, engine=engine)
    try:
        events = client.events(
            since=since,
            until=datetime.datetime.now(datetime.UTC),
            filters={"type": "container", "label": f"{RUN_LABEL}={run_id}"},
            decode=True,
        )
        return [str(event.get("Action")) for event in events]
    finally:
        client.close()
