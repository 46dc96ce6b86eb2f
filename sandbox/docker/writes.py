"""Writing several files into a container at once: one look inside, one archive.

A write through the archive API resolves symlinks in the container's scope, so the
paths the last archive of /workspace cannot vouch for are first checked by the helper
inside (files.py), all in one call: a round trip costs about 0.1 s, and a batch of swaps
or repairs would otherwise pay two per file.
"""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Callable, Mapping

from sandbox.base import SandboxError
from sandbox.docker.files import add_owned, check_helper, helper_command
from sandbox.docker.view import WorkspaceView
from sandbox.paths import clean_relative

Run = Callable[[list[str]], tuple[int, bytes, str]]
"""Runs a helper's argv from `/` in the container: (exit code, stdout, stderr)."""


def write_files(
    files: Mapping[str, bytes],
    view: WorkspaceView | None,
    manifest: Mapping[str, str],
    run: Run,
    put: Callable[[bytes], bool],
) -> WorkspaceView | None:
    """Write `files` (workspace paths) with `put` (the archive API at /workspace), after
    `run` checked the paths `view` cannot vouch for; the view with the files written."""
    relative = {clean_relative(path): data for path, data in files.items()}
    if not relative:
        return view
    if "." in relative:
        raise SandboxError("cannot write to the workspace root itself; name a file")
    unsure = [path for path in relative if view is None or not view.regular(path)]
    check_writable(run, unsure, {clean_relative(path): path for path in files})
    if not put(tar_of_files(relative)):
        raise SandboxError(f"cannot write {', '.join(files)!r} in the container")
    for path, data in relative.items():
        view = view.wrote(path, data, manifest.get(path)) if view else None
    return view


def check_writable(run: Run, paths: list[str], shown: Mapping[str, str]) -> None:
    """Raise what the helper finds first wrong with writing any of `paths` (workspace
    relative); `shown` maps them to the names the caller gave."""
    if not paths:
        return
    code, _, err = run(helper_command("check-write", json.dumps(paths)))
    index = int(err) if err.isdigit() and int(err) < len(paths) else None
    named = shown.get(paths[index], paths[index]) if index is not None else ", ".join(paths)
    check_helper(code, err, named)


def tar_of_files(files: Mapping[str, bytes]) -> bytes:
    """An archive holding the files and their parent folders, owned by the sandbox user."""
    buffer = io.BytesIO()
    parts = [path.split("/") for path in files]
    folders = {"/".join(part[:depth]) for part in parts for depth in range(1, len(part))}
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for folder in sorted(folders):
            entry = tarfile.TarInfo(folder)
            entry.type, entry.mode = tarfile.DIRTYPE, 0o755
            add_owned(archive, entry)
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            add_owned(archive, info, io.BytesIO(data))
    return buffer.getvalue()
