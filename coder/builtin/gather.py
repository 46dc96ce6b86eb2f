"""What the planners need, gathered through the tools: whole files, definitions, modules.

Each helper is a sub-generator of the policy (`yield from`): it yields batches of tool
calls and returns what it learnt. Files are read whole from read_file's raw `text` data,
page by page, so nothing depends on the numbered text shown to models.
"""

from __future__ import annotations

from coder.builtin.engine import Steps, ToolRequest
from tools import PAGE_LINES, TestRun, is_test_file

MAX_INDEX_FILES = 200
"""Source files read to build the module index for import repairs."""
MAX_DEFINITION_FILES = 20
_SKIPPED_DIRS = {".venv", "venv", ".tox", ".nox", "site-packages", "node_modules", "build", "dist"}


def read_files(paths: list[str]) -> Steps[dict[str, str]]:
    """{path: full text} of the files that could be read, in two batches of calls. Each
    path is asked once: the same call repeated in a row would trip the loop's stuck guard."""
    paths = list(dict.fromkeys(paths))
    first = yield [ToolRequest("read_file", {"path": path}) for path in paths]
    pages: dict[str, list[str]] = {}
    more: list[tuple[str, int]] = []
    for path, result in zip(paths, first, strict=True):
        data = result.data
        if data is None:
            continue
        pages[path] = [data["text"]]
        more += [(path, start) for start in range(data["end"] + 1, data["total"] + 1, PAGE_LINES)]
    if more:
        rest = yield [
            ToolRequest("read_file", {"path": path, "start_line": start}) for path, start in more
        ]
        for (path, _), result in zip(more, rest, strict=True):
            if result.data is None:
                pages.pop(path, None)
            elif path in pages:
                pages[path].append(result.data["text"])
    return {path: "".join(parts) for path, parts in pages.items()}


def definitions(
    known: dict[str, list[tuple[str, str]]], name: str, pattern: str
) -> Steps[dict[str, list[tuple[str, str]]]]:
    """{name: [(path, source)]} for every file with a line matching `pattern` (a def or
    class line); cached in `known`."""
    if not name:
        return {}
    if name not in known:
        [found] = yield [ToolRequest("search", {"pattern": pattern, "path": "."})]
        matches = (found.data or {}).get("matches", [])
        paths = list(dict.fromkeys(str(match[0]) for match in matches))[:MAX_DEFINITION_FILES]
        texts = yield from read_files(paths)
        known[name] = [(path, texts[path]) for path in paths if path in texts]
    return {name: known[name]}


def module_sources() -> Steps[dict[str, tuple[str, str]]]:
    """{dotted module name: (path, source)} of the repository's Python files outside tests."""
    [listing] = yield [ToolRequest("list_files", {"path": ".", "pattern": "*.py"})]
    files = (listing.data or {}).get("files", [])
    modules: dict[str, str] = {}
    for path in files:
        name = None if _skipped(path) else module_name(path)
        if name and len(modules) < MAX_INDEX_FILES:
            modules[path] = name
    texts = yield from read_files(list(modules))
    return {name: (path, texts[path]) for path, name in modules.items() if path in texts}


def module_name(path: str) -> str | None:
    """The dotted name `path` is imported as (src/ layouts too), or None if it cannot be."""
    parts = path.removesuffix(".py").split("/")
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def _skipped(path: str) -> bool:
    parts = path.split("/")
    folders = set(parts[:-1])
    return (
        is_test_file(path)
        or bool(folders & _SKIPPED_DIRS)
        or any(part.endswith(".egg-info") for part in parts[:-1])
    )


def failing_tests(test_file: str, ours: set[str]) -> Steps[set[str] | None]:
    """Our tests that fail (all of them if the file did not even collect)."""
    [result] = yield [ToolRequest("run_tests", {"tests": [test_file]})]
    if result.data is None:
        return None
    run = TestRun.model_validate(result.data)
    if any("::" not in failure.nodeid for failure in run.failures):
        return set(ours)  # the file did not collect: none of its tests ran
    return {failure.nodeid.split("::")[-1].split("[")[0] for failure in run.failures} & ours
