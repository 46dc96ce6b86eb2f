"""Static checks made ahead while the sandbox works (prejudge.py, headswap.swap_ahead),
their answers remembered by the files' bytes (remembered.py): on a real git repository,
the checks after the run find them made, and answer exactly as without them."""

from __future__ import annotations

from pathlib import Path

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.headswap import swap_ahead, swap_file
from coder.workflows.fix.prejudge import prejudge
from coder.workflows.fix.remembered import _ENTRIES, per_content
from coder.workflows.fix.renamed import only_renamed
from coder.workflows.fix.verify import _compare_file, find_weakenings
from coder.workflows.session import Session
from tests.helpers import commit_all, write_tree

SOURCE = "def total(amount, rate=2):\n    return amount * rate\n"
TEST = "tests/test_shop.py"
ORIGINAL = (
    "from shop import total\n\n\n"
    "def test_total():\n    assert total(2, rate=3) == 6\n    assert total(0) == 0\n"
)


def _session(tmp_path: Path, name: str) -> Session:
    repo = write_tree(tmp_path / name, {"shop.py": SOURCE, TEST: ORIGINAL})
    commit_all(repo)
    write_tree(repo, {"shop.py": SOURCE.replace("amount * rate", "amount * rate + 1")})
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    return Session.start("fix", settings, repo, hooks)


def test_a_check_is_made_once_for_the_same_bytes_and_the_oldest_answers_go() -> None:
    calls: list[tuple[str, bytes | None]] = []

    @per_content
    def check(path: str, old: bytes | None, new: bytes | None) -> tuple[int, ...]:
        calls.append((path, new))
        return (len(old or b""), len(new or b""))

    assert check("a.py", b"x", b"yy") == (1, 2)
    assert check("a.py", b"x", b"yy") == (1, 2)
    assert check("a.py", b"x", b"yz") == (1, 2)  # other bytes: checked again
    assert check("b.py", b"x", b"yy") == (1, 2)  # another path: checked again
    assert check("a.py", b"x", None) == (1, 0) and check("a.py", b"x", b"") == (1, 0)
    assert calls == [
        ("a.py", b"yy"),
        ("a.py", b"yz"),
        ("b.py", b"yy"),
        ("a.py", None),
        ("a.py", b""),
    ]
    for number in range(_ENTRIES):
        check("many.py", b"", str(number).encode())
    assert check.cache_info().currsize == _ENTRIES
    check("a.py", b"x", b"yy")  # among the oldest: gone, so checked again
    assert calls[-1] == ("a.py", b"yy")


def test_the_edits_judged_ahead_are_found_judged_after_the_run_with_the_same_answer(
    tmp_path: Path,
) -> None:
    weakened = ORIGINAL.replace("    assert total(0) == 0\n", "").encode()
    renamed = ORIGINAL.replace("total", "grand_total").encode()
    ahead = _session(tmp_path, "ahead")
    prejudge(ahead, {TEST: weakened, "tests/test_other.py": renamed}).join(30)
    before = _compare_file.cache_info()

    found = find_weakenings({TEST: ORIGINAL.encode()}, {TEST: weakened})

    after = _compare_file.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 0)
    assert [(w.kind, w.test) for w in found] == [("removed_assert", "test_total")]
    assert not only_renamed(ahead, {TEST: weakened})


def test_a_thread_that_meets_a_broken_file_ends_quietly_and_the_check_after_says_it(
    tmp_path: Path,
) -> None:
    session = _session(tmp_path, "broken")
    broken = b"def test_total(:\n"
    prejudge(session, {TEST: broken}).join(30)
    found = find_weakenings({TEST: ORIGINAL.encode()}, {TEST: broken})
    assert [w.kind for w in found] == ["syntax_error"]


def test_the_swap_to_heads_source_is_made_while_the_baseline_runs(tmp_path: Path) -> None:
    session = _session(tmp_path, "swap")
    swap_ahead(session).join(30)
    before = swap_file.cache_info()

    now = (session.repo / "shop.py").read_bytes()
    swapped = swap_file("shop.py", SOURCE.encode(), now)

    after = swap_file.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 0)
    assert swapped is not None and swapped.text == SOURCE
    assert [name for name, _, _ in swapped.functions] == ["total"]
