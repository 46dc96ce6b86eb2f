"""Skip the pytest plugins a run of some test files provably does not need.

pytest loads every plugin installed beside it (the `pytest11` entry points) at each
start, and some are slow to load: hypothesis' imports hypothesis, 1.2 s of every start.
`coder gen` starts pytest about nine times per module to judge its new tests. A plugin
is left out of such a run (`-p no:NAME`) only when nothing pytest reads for those files
could ask for it:

- no file (the tests, the conftest.py files and pytest configuration files on their
  way from the root) names it: its entry point, module or distribution;
- the configuration has no `addopts` (their options could be any plugin's) nor
  `required_plugins`, and no conftest declares `pytest_plugins`;
- every fixture the tests and conftests ask for is pytest's own or defined in them,
  every mark they use is pytest's own, and none is a coroutine (async plugins run those).

Whoever skips checks the answer too (gen: the first of its reruns keeps every plugin,
and the judging stays lean only while the lean runs agree with it).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from sandbox import Sandbox, SandboxError
from tools.harness.lean_code import self_contained
from tools.testfiles import CONFTEST, PYTEST_CONFIG_FILES

_MAX_CHARS = 200_000
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}")
_COMMON = frozenset({"pytest", "plugin", "plugins", "pytestplugin", "py", "python"})
_SKIPPED: ContextVar[tuple[str, ...]] = ContextVar("coder_skipped_plugins", default=())

_SCRIPT = """\
import sys
sys.path = [p for p in sys.path if p not in ('', '.')]
import json, os
from importlib.metadata import distributions
sys.path.insert(0, os.getcwd())  # as `python3 -m pytest` has it, once the imports are done
plugins, texts, seen = [], {}, set()
for dist in distributions():
    name = dist.metadata['Name'] or ''
    if name in seen:
        continue
    seen.add(name)
    for point in dist.entry_points:
        if point.group == 'pytest11':
            plugins.append([point.name, point.value, name])
for path in sys.argv[1:]:
    try:
        with open(path, encoding='utf-8', errors='replace') as file:
            texts[path] = file.read(LIMIT + 1)
    except OSError:
        pass
off = bool(os.environ.get('PYTEST_DISABLE_PLUGIN_AUTOLOAD'))
print(json.dumps({'plugins': plugins, 'texts': texts, 'off': off}))
""".replace("LIMIT", str(_MAX_CHARS))


@dataclass(frozen=True)
class Plugin:
    """One autoloaded pytest plugin: its entry point's name (what `-p no:` takes), the
    module it loads, and the distribution that installs it."""

    name: str
    module: str
    dist: str

    def words(self) -> frozenset[str]:
        """The words that name it (a text holding any of them may ask for it)."""
        top = self.module.split(":")[0].split(".")[0]
        return frozenset(_words(f"{self.name} {top} {self.dist}")) - _COMMON


def skipped_plugins() -> tuple[str, ...]:
    """The plugins the pytest runs started here leave out (runner.pytest_command)."""
    return _SKIPPED.get()


@contextmanager
def skipping(plugins: Iterable[str]) -> Iterator[None]:
    """Leave `plugins` out of the pytest runs started inside (in this thread)."""
    token = _SKIPPED.set(tuple(plugins))
    try:
        yield
    finally:
        _SKIPPED.reset(token)


def unneeded_plugins(sandbox: Sandbox, tests: list[str]) -> tuple[str, ...]:
    """The autoloaded plugins a pytest run of the test files `tests` provably does not
    need (none when it cannot tell)."""
    command = f"python3 -c {shlex.quote(_SCRIPT)} " + " ".join(
        shlex.quote(path) for path in read_for(tests)
    )
    try:
        result = sandbox.exec(command, timeout=30)
        found = json.loads(result.stdout) if result.exit_code == 0 else None
    except (SandboxError, ValueError):
        return ()
    if not isinstance(found, dict) or found.get("off"):
        return ()
    texts = _texts(found.get("texts"))
    if any(test.split("::")[0] not in texts for test in tests):
        return ()  # a file it could not read may ask for anything
    return skippable(_plugins(found.get("plugins")), texts)


def read_for(tests: list[str]) -> list[str]:
    """The files pytest reads for `tests`: them, and the conftest.py and configuration
    files of every folder from the root down to theirs."""
    paths = {test.split("::")[0] for test in tests}
    folders = {""}
    for path in paths:
        parts = posixpath.dirname(path).split("/")
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    names = (CONFTEST, *PYTEST_CONFIG_FILES)
    found = {posixpath.join(folder, name) for folder in folders for name in names}
    return sorted(paths | found)


def skippable(plugins: list[Plugin], texts: dict[str, str]) -> tuple[str, ...]:
    """The plugins nothing in `texts` (path -> text of the files pytest reads) asks for."""
    if not plugins or any(len(text) > _MAX_CHARS for text in texts.values()):
        return ()
    config = [t for p, t in texts.items() if posixpath.basename(p) in PYTEST_CONFIG_FILES]
    code = [t for p, t in texts.items() if p.endswith(".py")]
    if any(re.search(r"addopts|required_plugins", text) for text in config):
        return ()
    if any("pytest_plugins" in text for text in code) or not self_contained(code):
        return ()
    named = set(_words("\n".join(texts.values())))
    return tuple(p.name for p in plugins if p.words() and not p.words() & named)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _plugins(raw: object) -> list[Plugin]:
    plugins = []
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, list) and len(entry) == 3 and all(isinstance(e, str) for e in entry):
            if not _NAME.fullmatch(entry[0]):
                return []  # a name -p could not take: keep them all
            plugins.append(Plugin(*entry))
    return plugins


def _texts(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict):
        return {}
    return {str(path): text for path, text in raw.items() if isinstance(text, str)}
