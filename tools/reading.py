"""Tools that look at the workspace: read_file, list_files and search.

Every path goes through `clean_relative`, so absolute paths and `..` escapes are refused
before the sandbox sees them; the sandbox itself refuses symlinks that lead outside.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch

from pydantic import BaseModel, ConfigDict, Field

from sandbox import IGNORED_DIRS, PathOutsideWorkspace, SandboxError, SandboxGone, clean_relative
from tools._text import is_binary, number_lines, raw_lines, split_lines
from tools.base import Tool, ToolContext, ToolError, ToolResult

PAGE_LINES = 400
"""The most lines read_file returns in one call."""
MAX_LISTED = 500
MAX_MATCHES = 100
MAX_SEARCH_BYTES = 2_000_000
"""Larger files (data dumps, bundles) are skipped by search."""


class ListFilesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(default=".", description="Folder to list, relative to the root.")
    pattern: str | None = Field(
        default=None,
        description="Glob matched against the relative path or the file name, e.g. 'test_*.py'.",
    )


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str = Field(description="Python regular expression searched for in each line.")
    path: str = Field(default=".", description="File or folder to search, relative to the root.")


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="File path relative to the workspace root.")
    start_line: int | None = Field(
        default=None, ge=1, description="First line to show (1-based). Default: 1."
    )
    end_line: int | None = Field(
        default=None,
        ge=1,
        description=f"Last line to show, inclusive. Default: start_line + {PAGE_LINES - 1}.",
    )


READ_FILE_DESCRIPTION = f"""\
Read a text file with numbered lines (`  12 | text`).
Use it to see the exact current text and line numbers before editing. Files longer than \
{PAGE_LINES} lines come in pages; the note at the end says how to get the next one.
Do not use it to find where something is defined (use search) or to see what files exist \
(use list_files). Binary files are refused.
Example: {{"path": "tests/test_calc.py", "start_line": 1, "end_line": 60}}"""

LIST_FILES_DESCRIPTION = f"""\
List the files under a folder (recursively), as paths relative to the workspace root.
Use it to discover the layout: where the tests and the modules they import live. \
.git, virtualenvs and caches are left out; at most {MAX_LISTED} paths are returned.
Do not use it to look inside files (use search or read_file).
Example: {{"path": "tests", "pattern": "test_*.py"}}"""

SEARCH_DESCRIPTION = f"""\
Search text files for a Python regular expression; results are `path:line: text`.
Use it to find where a name is defined, imported or used before reading or editing. \
At most {MAX_MATCHES} matches are returned; narrow `path` or the pattern for more.
Do not use it to read a whole file (use read_file).
Example: {{"pattern": "def parse_date", "path": "src"}}"""


def list_files(ctx: ToolContext, args: ListFilesArgs) -> ToolResult:
    path = clean_relative(args.path)
    files = [name for name in ctx.sandbox.list(path) if not _ignored(name)]
    if args.pattern:
        files = [name for name in files if _glob_match(name, args.pattern)]
    where = "the workspace" if path == "." else path
    if not files:
        suffix = f" matching {args.pattern!r}" if args.pattern else ""
        return ToolResult(output=f"No files{suffix} under {where}.", data=_listing(files))
    shown = "\n".join(files[:MAX_LISTED])
    if len(files) > MAX_LISTED:
        shown += (
            f"\n[{MAX_LISTED} of {len(files)} files shown; narrow the listing with "
            "`path` or `pattern`.]"
        )
    return ToolResult(output=shown, data=_listing(files))


def _listing(files: list[str]) -> dict[str, object]:
    return {"files": files[:MAX_LISTED], "total": len(files)}


def search(ctx: ToolContext, args: SearchArgs) -> ToolResult:
    try:
        regex = re.compile(args.pattern)
    except re.error as exc:
        raise ToolError(
            f"invalid regular expression {args.pattern!r}: {exc}. Escape special "
            "characters such as ( [ . * with a backslash."
        ) from None
    path = clean_relative(args.path)
    found: list[list[str | int]] = []
    total = 0
    for name in ctx.sandbox.list(path):
        if _ignored(name):
            continue
        for number, line in _text_lines(ctx, name):
            if regex.search(line):
                total += 1
                if len(found) < MAX_MATCHES:
                    found.append([name, number, line])
    if not found:
        where = "the workspace" if path == "." else path
        message = f"No matches for {args.pattern!r} in {where}."
        return ToolResult(output=message, data={"matches": [], "total": 0})
    shown = [f"{name}:{number}: {_clip(str(line).strip())}" for name, number, line in found]
    if total > MAX_MATCHES:
        shown.append(f"[{MAX_MATCHES} of {total} matches shown; narrow the pattern or `path`.]")
    return ToolResult(output="\n".join(shown), data={"matches": found, "total": total})


def _ignored(path: str) -> bool:
    return any(part in IGNORED_DIRS for part in path.split("/")[:-1])


def _glob_match(path: str, pattern: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    loose = pattern.removeprefix("**/")
    return any(fnmatch(candidate, glob) for candidate in (path, name) for glob in (pattern, loose))


def _text_lines(ctx: ToolContext, path: str) -> list[tuple[int, str]]:
    """Numbered lines of a text file; nothing for binary, huge or unreadable files."""
    try:
        data = ctx.read(path)
    except SandboxGone:
        raise
    except (SandboxError, OSError):
        return []
    if len(data) > MAX_SEARCH_BYTES or is_binary(data):
        return []
    return list(enumerate(split_lines(data.decode("utf-8", errors="replace")), start=1))


def _clip(line: str, limit: int = 200) -> str:
    return line if len(line) <= limit else line[:limit] + "…"


def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolResult:
    path = clean_relative(args.path)
    data = read_bytes(ctx, path)
    if is_binary(data):
        return ToolResult(
            output=f"{path} is a binary file ({len(data)} bytes); read_file shows text only.",
            is_error=True,
        )
    text = data.decode("utf-8", errors="replace")
    lines = split_lines(text)
    if not lines:
        page = {"path": path, "text": "", "start": 0, "end": 0, "total": 0}
        return ToolResult(output=f"{path} is empty (0 lines).", data=page)
    start = args.start_line or 1
    if start > len(lines):
        raise ToolError(f"start_line {start} is past the end of {path} ({len(lines)} lines).")
    requested_end = args.end_line or start + PAGE_LINES - 1
    if requested_end < start:
        raise ToolError(f"end_line {requested_end} is before start_line {start}.")
    end = min(requested_end, start + PAGE_LINES - 1, len(lines))
    header = f"{path} (lines {start}-{end} of {len(lines)})"
    body = number_lines(lines[start - 1 : end], start)
    if end < len(lines) and (args.end_line is None or end < requested_end):
        body += (
            f"\n[Showing lines {start}-{end} of {len(lines)}; at most {PAGE_LINES} per call. "
            f"Call read_file with start_line={end + 1} for the next page.]"
        )
    page = {"path": path, "text": raw_lines(text, start, end), "start": start, "end": end}
    return ToolResult(output=f"{header}\n{body}", data={**page, "total": len(lines)})


def read_bytes(ctx: ToolContext, path: str) -> bytes:
    """The file's bytes; a missing or unreadable file is a ToolError that says what to do."""
    try:
        return ctx.read(path)
    except (PathOutsideWorkspace, SandboxGone):
        raise
    except (SandboxError, OSError) as exc:
        raise ToolError(f"{exc}. Use list_files to see what exists.") from None


LIST_FILES = Tool("list_files", LIST_FILES_DESCRIPTION, ListFilesArgs, list_files)
SEARCH = Tool("search", SEARCH_DESCRIPTION, SearchArgs, search)
READ_FILE = Tool("read_file", READ_FILE_DESCRIPTION, ReadFileArgs, read_file)
