"""Functions that change an argument in place: which parameters they change (changes.py),
and the tests that bind the argument and assert it after the call (inplace.py), run by
pytest."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.changes import changed_params
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.targets import find_targets
from tests.helpers import generate, run_pytest_in

STACKS = '''\
def push(stack, item):
    """Put `item` on top."""
    _grow(stack, item)


def _grow(items, item):
    items.append(item)
    _settle(items, len(items) - 1)


def _settle(items, last):
    while last > 0 and items[last] < items[last - 1]:
        items[last], items[last - 1] = items[last - 1], items[last]
        last -= 1


def take(stack):
    """The top item, taken off."""
    if not stack:
        raise IndexError("take from an empty stack")
    first = stack[0]
    del stack[0]
    return first


def forget(seen, key):
    seen.discard(key)


def total(values, start=0):
    start += sum(values)
    return start


def copied(items):
    ordered = list(items)
    ordered.sort()
    return ordered
'''


def test_the_parameters_changed_in_place_directly_and_through_the_modules_helpers() -> None:
    changed = changed_params(ModuleFacts.of(ast.parse(STACKS)))
    assert changed == {
        "push": [0],  # through _grow, through _settle
        "_grow": [0],
        "_settle": [0],
        "take": [0],
        "forget": [0],
    }
    assert "copied" not in changed  # it sorts its own copy
    assert "total" not in changed  # `start += ...` binds a new number


def test_a_probe_binds_the_argument_and_observes_it() -> None:
    targets = {t.name: t for t in find_targets(STACKS, ["push", "copied"], "stacks")}
    push = targets["push"]
    assert push.var == "stack" and push.observers == ["stack"] and push.argument
    bound = [p for p in push.probes if p.setup]
    assert bound and all(p.call.source().startswith("push(stack, ") for p in bound)
    assert bound[0].setup[0].source().startswith("[")
    assert not targets["copied"].var and not targets["copied"].argument


def test_the_tests_assert_the_argument_after_the_call_and_pass(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"stacks.py": STACKS}, "stacks", ["push", "take"])
    text = generated.text
    assert "stack = [" in text or '"stack"' in text  # bound first, or a table's column
    assert "push(stack, " in text and "take(stack)" in text
    assert "assert stack == " in text or "assert stack == expected_stack" in text
    assert "expected_2" not in text  # the column is named after the argument
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = STACKS.replace("    del stack[0]\n", "")  # still returns the first item
    (generated.repo / "stacks.py").write_text(broken)
    assert run_pytest_in(generated.repo).returncode == 1  # the argument's check notices
