"""Hostile workspace paths: lexical checks and symlink confinement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox import PathOutsideWorkspace, clean_relative, resolve_inside

SEGMENTS = ["..", ".", "a", "b", "", "/", "\\", "C:", "c:", "out", "inlink", "dangling", "\0"]
SEPARATORS = ["/", "\\", "//"]

hostile_paths = st.builds(
    lambda parts, seps: "".join(p + s for p, s in zip(parts, seps, strict=False)),
    st.lists(st.sampled_from(SEGMENTS), max_size=8),
    st.lists(st.sampled_from(SEPARATORS), min_size=8, max_size=8),
) | st.text(max_size=30)

absolute_prefixes = st.sampled_from(["/", "\\\\", "\\", "C:\\", "C:/", "c:", "Z:x", "//server/"])


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """root/ with links that stay inside and links that lead out (file, folder, dangling)."""
    base = tmp_path_factory.mktemp("tree")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = base / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "file.txt").write_text("inside")
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.txt", root / "a" / "secret_link")
    os.symlink(outside / "missing.txt", root / "dangling")
    os.symlink("a", root / "inlink")
    return root


@given(hostile_paths)
def test_clean_relative_refuses_or_stays_under_the_root(path: str) -> None:
    try:
        cleaned = clean_relative(path)
    except PathOutsideWorkspace:
        return
    root = "/workspace/root"
    joined = os.path.normpath(os.path.join(root, cleaned))
    assert joined == root or joined.startswith(root + "/")
    assert "\\" not in cleaned and "\0" not in cleaned
    assert cleaned == "." or ".." not in cleaned.split("/")


@given(absolute_prefixes, hostile_paths)
def test_absolute_paths_are_always_refused(prefix: str, rest: str) -> None:
    with pytest.raises(PathOutsideWorkspace, match="relative to the workspace root"):
        clean_relative(prefix + rest)


@given(hostile_paths)
def test_resolve_inside_never_returns_a_path_outside(tree: Path, path: str) -> None:
    real_root = os.path.realpath(tree)
    try:
        resolved = resolve_inside(tree, path)
    except PathOutsideWorkspace:
        return
    assert str(resolved) == real_root or str(resolved).startswith(real_root + os.sep)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("", "."),
        (".", "."),
        ("./a//b/", "a/b"),
        ("a\\b\\c.py", "a/b/c.py"),
        ("a/../b", "b"),
        ("a/./b/../c", "a/c"),
        ("a/..", "."),
        ("tests/test_x.py", "tests/test_x.py"),
        ("a/C:b", "a/C:b"),
        ("..foo/bar", "..foo/bar"),
    ],
)
def test_clean_relative_normalises(path: str, expected: str) -> None:
    assert clean_relative(path) == expected


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "..",
        "../x",
        "a/../../x",
        "a\\..\\..\\x",
        "C:\\x",
        "C:/x",
        "c:x",
        "\\\\server\\share",
        "//server/share",
        "a\0b",
    ],
)
def test_clean_relative_refuses(path: str) -> None:
    with pytest.raises(PathOutsideWorkspace) as caught:
        clean_relative(path)
    assert repr(path) in str(caught.value)


@pytest.mark.parametrize(
    "path",
    [
        "out",
        "out/secret.txt",
        "a/secret_link",
        "dangling",
        "inlink/../out/secret.txt",
        "out/new_file.txt",
    ],
)
def test_resolve_inside_refuses_symlink_escapes(tree: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace, match="outside the workspace"):
        resolve_inside(tree, path)


def test_resolve_inside_follows_links_that_stay_inside(tree: Path) -> None:
    real_root = Path(os.path.realpath(tree))
    assert resolve_inside(tree, "inlink/file.txt") == real_root / "a" / "file.txt"
    assert resolve_inside(tree, "a/new/not_yet.txt") == real_root / "a" / "new" / "not_yet.txt"
    assert resolve_inside(tree, ".") == real_root


def test_dotdot_after_a_link_is_lexical_not_physical(tree: Path) -> None:
    # `out/..` would be `outside/..` to the OS; lexically it is the root itself.
    assert resolve_inside(tree, "out/../a/file.txt").read_text() == "inside"
