"""Values a module shows its parameters: the literal arguments of its doctests' calls
(names bound on earlier example lines read through), carried along its own calls."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.calls import Call
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.flows import by_name, shown_values
from coder.builtin.gen.probe import Result
from coder.builtin.gen.render import render_test
from coder.builtin.gen.targets import find_targets
from coder.builtin.gen.types import Probe, Target
from tests.helpers import generate, run_pytest_in

STORE = '''\
class Path:
    def __init__(self, text):
        self.parts = text.strip("/").split("/") if text else []

    def lookup(self, tree):
        """Walks `tree` along the path."""
        for part in self.parts:
            tree = tree[part]
        return tree

    def depth(self):
        return len(self.parts)


def lookup(tree, text):
    """The value of `tree` at `text`.

    >>> tree = {"a": {"b": 1}, "c": [1, 2]}
    >>> lookup(tree, "/a/b") == 1
    True
    >>> lookup(tree, "/c")
    [1, 2]
    """
    return Path(text).lookup(tree)
'''


def _line(tree: ast.Module, name: str) -> int:
    return next(n.lineno for n in ast.walk(tree) if getattr(n, "name", "") == name)


def test_doctest_arguments_read_names_bound_on_earlier_lines() -> None:
    tree = ast.parse(STORE)
    shown = shown_values(tree)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "lookup")
    tree_value = '{"a": {"b": 1}, "c": [1, 2]}'
    assert shown.values[(function.lineno, "tree")] == [tree_value]
    assert shown.values[(function.lineno, "text")] == ['"/a/b"', '"/c"']
    calls = [ast.unparse(call) for call in shown.calls[function.lineno]]
    written = "{'a': {'b': 1}, 'c': [1, 2]}"
    assert calls == [f"lookup({written}, '/a/b')", f"lookup({written}, '/c')"]


def test_values_follow_the_parameters_a_function_passes_on() -> None:
    tree = ast.parse(STORE)
    shown = shown_values(tree).values
    init = _line(tree, "__init__")
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.lineno == 5)
    assert shown[(init, "text")] == ['"/a/b"', '"/c"']  # Path(text) in lookup()
    assert shown[(method.lineno, "tree")] == ['{"a": {"b": 1}, "c": [1, 2]}']  # .lookup(tree)
    assert by_name(shown)["text"] == ['"/a/b"', '"/c"']


def test_a_parameter_no_hint_describes_takes_the_values_shown() -> None:
    facts = ModuleFacts.of(ast.parse(STORE))
    assert facts.named["tree"] == ['{"a": {"b": 1}, "c": [1, 2]}']
    targets = {t.name: t for t in find_targets(STORE, ["Path.lookup", "lookup"], "store")}
    method = targets["Path.lookup"]
    assert not method.skip
    sources = [(tuple(c.source() for c in p.setup), p.call.source()) for p in method.probes]
    assert (('Path("/a/b")',), 'path.lookup({"a": {"b": 1}, "c": [1, 2]})') in sources
    calls = [p.call.source() for p in targets["lookup"].probes]
    assert 'lookup({"a": {"b": 1}, "c": [1, 2]}, "/c")' in calls


def test_the_tests_call_a_method_with_what_the_module_shows(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"store.py": STORE}, "store", ["Path.lookup"])
    assert "Path.lookup: skipped" not in generated.summary
    assert 'path.lookup({"a": {"b": 1}, "c": [1, 2]})' in generated.text
    assert "== 1\n" in generated.text or "== [1, 2]\n" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_call_repeated_on_another_instance_is_named_after_that_instance() -> None:
    target = Target("Path.lookup", owner="Path", var="path")
    call = Call("path.lookup", ('{"c": 1}',), qualified=False)
    made = [Call("Path", ('"/a/b"',)), Call("Path", ('"/c"',))]
    results = [Result(Probe(call, (instance,)), "raise", expect="KeyError") for instance in made]
    taken: set[str] = set()
    names = [render_test(target, result, "", taken) for result in results]
    assert [n.name for n in names if n] == [
        "test_path_lookup_raises_key_error",
        "test_path_lookup_raises_key_error_on_c",
    ]


CLI = '''\
import re


class Stream(list):
    def __init__(self, source):
        super().__init__(source.split() if isinstance(source, str) else source)


def words(source):
    return re.findall(r"<\\\\w+>", source)


def parse_args(argv=None, strict=False):
    """Drops the options.

    >>> parse_args(["a", "-v"])
    ['a']
    """
    if argv is None:
        argv = []
    argv = Stream(argv)
    return kept(argv)


def kept(left):
    return [item for item in left if not item.startswith("-")]
'''


def test_a_value_goes_on_only_until_the_function_binds_its_name_anew() -> None:
    """`argv = Stream(argv)` passes the shown list to Stream, and what `kept` gets after
    it is another value; filling in a default (`if argv is None`) changes nothing."""
    tree = ast.parse(CLI)
    shown = shown_values(tree).values
    assert shown[(_line(tree, "__init__"), "source")] == ['["a", "-v"]']
    assert (_line(tree, "kept"), "left") not in shown


def test_a_value_shown_under_the_same_name_elsewhere_must_fit_the_use() -> None:
    """`Stream(source)` is shown a list; `words(source)` reads its `source` with a regex,
    so that list is no value for it."""
    facts = ModuleFacts.of(ast.parse(CLI))
    assert facts.named["source"] == ['["a", "-v"]']
    [words] = find_targets(CLI, ["words"], "cli")
    assert all("[" not in probe.call.source() for probe in words.probes)
    assert words.probes and all('"' in probe.call.source() for probe in words.probes)
