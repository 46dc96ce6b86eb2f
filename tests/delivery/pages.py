"""Helpers for the `--html` tests: real `coder gen` / `coder fix` runs in a fresh process,
a small tree built with html.parser to read a page back, and headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

# Written into the fixtures' files: it must reach the page as text, never as markup.
HOSTILE = '</td></tr><script>alert("pwned")</script><img src="http://probe.invalid/x">'
# A secret in the environment that the repository also holds: the page must hide it.
SECRET_NAME, SECRET = "MY_SERVICE_TOKEN", "live-html-7f6e5d4c3b2a"
VOID = {"meta", "br", "wbr", "img", "link", "input", "hr", "col", "area", "base", "source"}


@dataclass(frozen=True)
class Run:
    """A finished run: its JSON report, its page and the repository it worked on."""

    report: dict[str, Any]
    page: Path
    repo: Path
    stderr: str

    @property
    def html(self) -> str:
        return self.page.read_text(encoding="utf-8")

    def tree(self) -> Node:
        return parse(self.html)


def run_coder(command: str, repo: Path, page: Path, home: Path) -> Run:
    """`python -m coder COMMAND REPO --html PAGE --json` with the builtin engine."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CODER_"))}
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **clean,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        SECRET_NAME: SECRET,
    }
    flags = ["--model", "builtin", "--sandbox", "local", "--dry-run", "--json"]
    argv = [sys.executable, "-m", "coder", command, str(repo), *flags, "--html", str(page)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.stdout, done.stderr
    return Run(json.loads(done.stdout), page, repo, done.stderr)


@dataclass
class Node:
    """An element of a parsed page."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [
            node
            for node in self.walk()
            if (tag is None or node.tag == tag) and (cls is None or cls in node.classes)
        ]

    def by_id(self, ident: str) -> Node:
        [node] = [node for node in self.walk() if node.attrs.get("id") == ident]
        return node


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        names = [node.tag for node in self.stack]
        assert tag in names, f"</{tag}> closes nothing open"
        del self.stack[len(names) - 1 - names[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(page)
    builder.close()
    assert [node.tag for node in builder.stack] == ["#document"], "unclosed elements"
    return builder.root


def chromium() -> str:
    """The Chromium binary; a missing one fails in CI (where .ci/run installs it)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed: apt-get install -y chromium")
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    return found


# Chromium's own services still call home with these flags; what a page asks for never
# goes to these hosts, so only they are left out of what the proxy saw.
BROWSER_SERVICES = {"update.googleapis.com", "accounts.google.com", "clients2.google.com"}
QUIET = [
    "--headless",
    "--no-sandbox",  # root in a container
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-features=Translate,OptimizationHints,MediaRouter,NetworkTimeServiceQuerying",
]


def browse(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on file://PAGE with a fresh profile; `flags` say what to do."""
    argv = [chromium(), *QUIET, f"--user-data-dir={profile}", *flags, page.as_uri()]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)
