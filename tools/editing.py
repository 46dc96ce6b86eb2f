"""Tools that change the workspace: write_file and edit_file, under the write policy.

Paths are cleaned like the reading tools' paths; `.coder/` is never writable, and the
user is asked first when an approver is set.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sandbox import RESERVED_DIR, PathOutsideWorkspace, SandboxError, SandboxGone, clean_relative
from tools._text import (
    CONTEXT_LINES,
    ambiguous_message,
    is_binary,
    line_of,
    match_line_endings,
    miss_message,
    number_lines,
    split_lines,
)
from tools.base import Tool, ToolContext, ToolError, ToolResult, declined
from tools.reading import read_bytes


class WriteFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="File path relative to the workspace root.")
    content: str = Field(description="The complete new content of the file.")


class EditFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="File path relative to the workspace root.")
    old: str = Field(
        description="Exact text to replace, including indentation; must occur exactly once."
    )
    new: str = Field(description="Text to put in its place (may be empty to delete).")


WRITE_FILE_DESCRIPTION = """\
Create a file or replace its whole content.
Use it for new files, or when most of a file changes. The write policy may refuse some \
paths (for example source files when only tests may change).
Do not use it for small changes to an existing file: edit_file is safer and cheaper.
Example: {"path": "tests/test_parse.py", "content": "from app import parse\\n\\n\\ndef \
test_parse():\\n    assert parse('1') == 1\\n"}"""

EDIT_FILE_DESCRIPTION = """\
Replace one exact piece of text in a file with new text.
`old` must match the file exactly (spaces, indentation, quotes) and occur exactly once; \
copy it from read_file output without the line-number prefix. On a miss the nearest lines \
are shown so you can correct `old`; if it occurs several times, include more lines.
Do not use it to create files or rewrite most of one (use write_file).
Example: {"path": "tests/test_calc.py", "old": "    assert add(2, 2) == 5", \
"new": "    assert add(2, 2) == 4"}"""


def write_file(ctx: ToolContext, args: WriteFileArgs) -> ToolResult:
    path = _check_writable(ctx, args.path)
    existed = _exists(ctx, path)
    if not ctx.approved("write", path):
        raise ToolError(declined(f"writing {path}"))
    data = args.content.encode("utf-8")
    ctx.write(path, data)
    ctx.written.add(path)
    verb = "Replaced" if existed else "Created"
    count = len(split_lines(args.content))
    return ToolResult(output=f"{verb} {path} ({count} lines, {len(data)} bytes).")


def edit_file(ctx: ToolContext, args: EditFileArgs) -> ToolResult:
    path = _check_writable(ctx, args.path)
    if not args.old:
        raise ToolError(
            "`old` is empty; give the exact text to replace (use write_file to create a file)."
        )
    if args.old == args.new:
        raise ToolError("`old` and `new` are the same; nothing would change.")
    text = _read_text(ctx, path)
    old, new = match_line_endings(text, args.old, args.new)
    count = text.count(old)
    if count == 0:
        raise ToolError(miss_message(path, text, args.old))
    if count > 1:
        raise ToolError(ambiguous_message(path, text, old, count))
    if not ctx.approved("write", path):
        raise ToolError(declined(f"editing {path}"))
    offset = text.index(old)
    updated = text[:offset] + new + text[offset + len(old) :]
    ctx.write(path, updated.encode("utf-8"))
    ctx.written.add(path)
    first = line_of(updated, offset)
    last = first + len(split_lines(new)) - 1 if new else first
    lines = split_lines(updated)
    start = max(1, first - CONTEXT_LINES)
    shown = number_lines(lines[start - 1 : min(len(lines), last + CONTEXT_LINES)], start)
    return ToolResult(output=f"Edited {path}. The changed region now reads:\n{shown}")


def _check_writable(ctx: ToolContext, raw_path: str) -> str:
    """Clean `raw_path` and apply the reserved-folder rule and the write policy."""
    path = clean_relative(raw_path)
    if path == RESERVED_DIR or path.lower().startswith(RESERVED_DIR + "/"):
        raise ToolError(
            f"{path} is inside {RESERVED_DIR}/, which holds coder's own files; "
            "writing there is never allowed."
        )
    reason = ctx.write_policy(path)
    if reason:
        raise ToolError(reason)
    return path


def _exists(ctx: ToolContext, path: str) -> bool:
    try:
        ctx.read(path)
    except (PathOutsideWorkspace, SandboxGone):
        raise
    except (SandboxError, OSError):
        return False
    return True


def _read_text(ctx: ToolContext, path: str) -> str:
    data = read_bytes(ctx, path)
    if is_binary(data):
        raise ToolError(f"{path} is a binary file; edit_file changes text files only.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(
            f"{path} is not valid UTF-8; edit_file would corrupt it. "
            "Replace it with write_file if you must change it."
        ) from None


WRITE_FILE = Tool("write_file", WRITE_FILE_DESCRIPTION, WriteFileArgs, write_file)
EDIT_FILE = Tool("edit_file", EDIT_FILE_DESCRIPTION, EditFileArgs, edit_file)
