"""The `--html` pages in a real browser: headless Chromium (Debian's package) renders them
as written (the hostile text stays text, the marks are where the page put them), takes a
screenshot, and asks the network for nothing, even for markup smuggled into the page."""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.delivery.pages import BROWSER_SERVICES, HOSTILE, Run, browse, chromium, parse

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(autouse=True)
def _chromium() -> None:
    chromium()  # skip (fail in CI) before the shared runs start when there is no browser


def _rendered(page: Path, profile: Path) -> str:
    done = browse(page, profile, "--dump-dom")
    assert done.returncode == 0 and "<body>" in done.stdout, done.stderr[-2000:]
    return done.stdout


def test_chromium_renders_the_gen_page_with_its_marks_and_the_hostile_text_as_text(
    gen_run: Run, tmp_path: Path
) -> None:
    dom = parse(_rendered(gen_run.page, tmp_path / "profile"))
    assert not dom.all("script") and not dom.all("img")
    [module] = gen_run.report["modules"]
    [missed] = module["lines_missed_after"]
    row = dom.by_id(f"m1-L{missed}")
    assert "missed" in row.classes and "no test runs this line" in row.attrs["title"]
    assert HOSTILE in dom.by_id(f"m1-L{missed - 1}").text()
    assert len(dom.all("tr", "note")) == len(module["untested"])


def test_chromium_renders_the_fix_page_with_a_row_per_test_and_the_coloured_patch(
    fix_run: Run, tmp_path: Path
) -> None:
    dom = parse(_rendered(fix_run.page, tmp_path / "profile"))
    assert not dom.all("script") and not dom.all("img")
    [table] = dom.all("table", "tests")
    assert len(table.all("tr")) == 1 + len(fix_run.report["tests"])
    assert len(dom.all("tr", "add")) == len(dom.all("tr", "del")) == 2
    assert any(HOSTILE in row.text() for row in dom.all("tr", "add"))


@pytest.mark.parametrize("name", ["gen_run", "fix_run"])
def test_chromium_takes_a_screenshot_of_the_page(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    run: Run = request.getfixturevalue(name)
    shot = tmp_path / f"{name}.png"
    done = browse(run.page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,2000")
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1280, 2000)  # IHDR: width, height


class _Recorder(BaseHTTPRequestHandler):
    """A proxy that answers nothing and notes the host of every request."""

    hosts: list[str] = []

    def _note(self) -> None:
        host = (
            self.path.partition(":")[0]
            if self.command == "CONNECT"
            else urlsplit(self.path).hostname
        )
        type(self).hosts.append(host or self.path)
        self.send_response(404)
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_CONNECT = _note

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[str]]]:
    """A recording proxy on 127.0.0.1: its address, and the hosts asked for (the
    browser's own services left out)."""
    _Recorder.hosts = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.hosts
    finally:
        server.shutdown()
        server.server_close()


def _hosts_asked(page: Path, profile: Path, proxy: tuple[str, list[str]]) -> set[str]:
    address, hosts = proxy
    del hosts[:]
    done = browse(page, profile, f"--proxy-server={address}", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    return set(hosts) - BROWSER_SERVICES


def test_the_pages_ask_the_network_for_nothing_even_for_smuggled_markup(
    gen_run: Run, fix_run: Run, tmp_path: Path, proxy: tuple[str, list[str]]
) -> None:
    probe = '<img src="http://probe.invalid/smuggled.png">'
    control = tmp_path / "control.html"
    control.write_text(f"<!DOCTYPE html><p>a plain page {probe}</p>", encoding="utf-8")
    # The proxy sees what a page loads: a plain page's image is asked for...
    assert _hosts_asked(control, tmp_path / "p0", proxy) == {"probe.invalid"}
    # ...the pages ask for nothing...
    assert _hosts_asked(gen_run.page, tmp_path / "p1", proxy) == set()
    assert _hosts_asked(fix_run.page, tmp_path / "p2", proxy) == set()
    # ...and even markup that escaped the escaping would load nothing: the page's policy.
    smuggled = tmp_path / "smuggled.html"
    smuggled.write_text(gen_run.html.replace("<body>", f"<body>{probe}", 1), encoding="utf-8")
    assert _hosts_asked(smuggled, tmp_path / "p3", proxy) == set()
