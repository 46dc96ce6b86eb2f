"""A repair that only spells the source's new names (renamed.py), on a real git
repository: what counts as such a repair and what does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.renamed import only_renamed
from coder.workflows.session import Session
from tests.helpers import commit_all, write_tree

SOURCE = "def total(amount, rate=2):\n    return amount * rate\n"
TEST = "tests/test_shop.py"
ORIGINAL = "from shop import total\n\n\ndef test_it():\n    assert total(2, rate=3) == 6\n"


def _session(tmp_path: Path) -> Session:
    repo = write_tree(tmp_path / "repo", {"shop.py": SOURCE, TEST: ORIGINAL})
    commit_all(repo)
    write_tree(repo, {"shop.py": SOURCE.replace("rate", "factor")})
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    return Session.start("fix", settings, repo, hooks)


@pytest.mark.parametrize(
    ("repaired", "expected"),
    [
        (ORIGINAL.replace("rate=3", "factor=3"), True),
        (  # wrapped differently and commented: still the same tokens
            ORIGINAL.replace(
                "total(2, rate=3)", "total(\n        2,  # two\n        factor=3\n    )"
            ),
            True,
        ),
        (ORIGINAL.replace("rate=3) == 6", "factor=3) == 7"), False),  # a literal too
        (ORIGINAL.replace("rate=3", "scale=3"), False),  # a name the source did not add
        (ORIGINAL.replace("rate=3", "factor=3") + "\n\ndef test_more():\n    pass\n", False),
    ],
)
def test_only_the_sources_new_names_in_place_of_others(
    tmp_path: Path, repaired: str, expected: bool
) -> None:
    session = _session(tmp_path)
    assert only_renamed(session, {TEST: repaired.encode()}) is expected


def test_a_change_of_a_source_file_is_never_only_a_rename(tmp_path: Path) -> None:
    session = _session(tmp_path)
    changes = {TEST: ORIGINAL.replace("rate=3", "factor=3").encode(), "shop.py": b"X = 1\n"}
    assert not only_renamed(session, changes)
    assert not only_renamed(session, {})
