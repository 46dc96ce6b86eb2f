"""What a reviewer would reject is not written: an error pinned that the function does
not raise itself, a crash on a guessed input reported as a bug, a private helper tested
where the public API already notices all it does, a name that shadows a builtin."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.agent.loop import Agent
from coder.builtin.gen import BuiltinGenModel, Call, Probe, Result, Target, find_targets
from coder.builtin.gen.naming import MAX_NAME, join_name
from coder.builtin.gen.select import designed, possible_bugs, raise_lines
from coder.builtin.gen.testfile import import_style
from sandbox import LocalSandbox
from tests.helpers import Generated, function_source, generate, run_pytest_in, write_tree
from tools import ToolContext, default_registry

PARSE = '''\
def port(text: str) -> int:
    """The port number in `text`."""
    return int(text.strip()) % 65536


def level(name: str) -> int:
    """The level called `name`.

    Raises KeyError for an unknown name.
    """
    return {"low": 1, "high": 3}[name.lower()]


def positive(value: int) -> int:
    if value <= 0:
        raise ValueError("not positive")
    return value


def _digits(ch: str) -> bool:
    return ch.isdigit()


def digits(text: str) -> int:
    return sum(1 for ch in text if _digits(ch))
'''


def test_only_errors_the_function_raises_or_documents_are_pinned(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"parse.py": PARSE}, "parse")
    # int("abc") fails inside the standard library: not a behaviour of port() to pin.
    assert "pytest.raises(ValueError):\n        port(" not in generated.text
    # what it returns is still checked (alone, or as a row of a table of functions)
    assert "port(" in generated.text or "(port, " in generated.text
    assert function_source(generated.text, "test_positive_raises_for_zero_value") == (
        "def test_positive_raises_for_zero_value():\n"
        '    with pytest.raises(ValueError, match="not positive"):\n'
        "        positive(0)"
    )
    assert "POSSIBLE BUG" not in generated.summary
    assert run_pytest_in(generated.repo).returncode == 0


def test_an_error_is_pinned_when_a_raise_a_lookup_or_the_docstring_explains_it() -> None:
    [level] = find_targets(PARSE, ["level"], "parse")
    assert level.documented == {"KeyError"}
    raises = raise_lines(ast.parse(PARSE))
    assert raises == {16}

    def error(kind: str, line: int, target: Target = level) -> bool:
        result = Result(Probe(Call("f")), "raise", type=kind, expect=kind, raised_at=line)
        return designed(result, target, raises)

    plain = Target("port")
    assert error("ValueError", 16, plain)  # a raise statement of the module
    assert not error("ValueError", 3, plain)  # int() failed on a line of the module
    assert not error("ValueError", 0, plain)  # deep in the standard library
    assert error("IndexError", 3, plain)  # a lookup in the module's own code
    assert error("KeyError", 0)  # the docstring says so


def test_a_private_helper_gets_no_test_when_the_public_one_notices_it_all(
    tmp_path: Path,
) -> None:
    # Asked for first, the helper still comes after the public function that calls it.
    generated = generate(tmp_path, {"parse.py": PARSE}, "parse", ["_digits", "digits"])
    assert " _digits(" not in generated.text and "import _digits" not in generated.text
    assert "- _digits: skipped (the other tests notice all it does)" in generated.summary


def test_tests_join_a_file_that_imports_the_module_from_its_package(tmp_path: Path) -> None:
    existing = "from pkg import parse\n\n\ndef test_old():\n    assert parse.positive(2) == 2\n"
    files = {"pkg/__init__.py": "", "pkg/parse.py": PARSE, "tests/test_parse.py": existing}
    generated = generate_in_package(tmp_path, files)
    assert "    parse.positive(0)\n" in generated.text
    assert "from pkg.parse import" not in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


COMPILE = '''\
def compile(pattern: str) -> list[str]:
    """The words of `pattern`.

    >>> compile("a b")
    ['a', 'b']
    """
    if not pattern:
        raise ValueError("empty pattern")
    return pattern.split()


def positive(value: int) -> int:
    if value <= 0:
        raise ValueError("not positive")
    return value
'''


def test_a_name_that_would_shadow_a_builtin_is_called_through_its_module(
    tmp_path: Path,
) -> None:
    files = {"pkg/__init__.py": "", "pkg/parse.py": COMPILE}
    generated = generate_in_package(tmp_path, files)
    assert "\nfrom pkg import parse\n" in generated.text
    assert "import compile" not in generated.text and "from pkg.parse" not in generated.text
    assert 'parse.compile("")' in generated.text and "parse.positive(" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0
    # A top-level module is imported by its name; a file that imports names from the
    # module already keeps its style.
    assert import_style("", "parse", ["compile", "port"]).module_line == "import parse"
    existing = "from parse import port\n"
    assert import_style(existing, "parse", ["compile"]) == import_style(existing, "parse")
    assert import_style("", "parse", ["port", "level"]) == import_style("", "parse")


def test_a_module_named_like_a_variable_of_its_class_keeps_the_from_import() -> None:
    style = import_style("", "roman", ["Roman", "format"])  # `roman = Roman(3)` in a test
    assert style.prefix == "" and style.module_line == ""
    assert import_style("", "pkg.type", ["format"]).prefix == ""  # `type` is a builtin
    assert import_style("", "version", ["format"], ["version"]).prefix == ""  # a column's name


def generate_in_package(tmp_path: Path, files: dict[str, str]) -> Generated:
    repo = write_tree(tmp_path / "repo", files)
    target = {"path": "pkg/parse.py", "module": "pkg.parse", "test_file": "tests/test_parse.py"}
    with LocalSandbox(repo) as box:
        agent = Agent(BuiltinGenModel(), default_registry(), ToolContext(box))
        result = agent.run("Write tests for pkg/parse.py", task_data={"target": target})
        text = box.read("tests/test_parse.py").decode()
    (repo / "tests").mkdir(exist_ok=True)
    (repo / "tests/test_parse.py").write_text(text, encoding="utf-8")
    return Generated(repo, result.status, result.summary, text)


def test_a_long_test_name_is_cut_at_a_whole_word() -> None:
    name = join_name(
        "test_indexed_set_symmetric_difference_update", "after_pop", "with_another_indexed_set"
    )
    assert name == "test_indexed_set_symmetric_difference_update_after_pop_with_another"
    assert len(join_name("test_" + "x" * 90)) == MAX_NAME  # one long word: cut where it must


FORWARDING = """\
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm(self):
        return abs(self.x) + abs(self.y)


class Labelled(Point):
    def __init__(self, *a, **kw):
        self.label = kw.pop("label", "")
        super().__init__(*a, **kw)

    def title(self):
        return f"{self.label}: {self.norm()}"
"""


def test_a_constructor_passing_its_arguments_on_takes_its_parents(tmp_path: Path) -> None:
    """`Labelled(*a, **kw)` hands both to `Point.__init__`: it is built with Point's
    parameters and the key it reads itself. Before, it was only called with neither,
    and the parent's TypeError was reported as a possible bug."""
    names = ["Labelled.__init__", "Labelled.title"]
    generated = generate(tmp_path, {"shapes.py": FORWARDING}, "shapes", names)
    assert "POSSIBLE BUG" not in generated.summary
    assert "labelled = Labelled(2.5, 2.5, label=" in generated.text
    assert "missing" not in generated.text  # no test pins a TypeError
    assert run_pytest_in(generated.repo).returncode == 0


def test_an_error_about_arguments_that_do_not_fit_is_no_bug() -> None:
    target = Target("Labelled.__init__", owner="Labelled")
    typical = Probe(Call("Labelled"))
    target.probes = [typical]
    why = "Point.__init__() missing 2 required positional arguments: 'x' and 'y'"
    wrong = Result(typical, "raise", repr=why, type="TypeError")
    crash = Result(typical, "raise", repr="unsupported operand", type="TypeError")
    assert possible_bugs(target, [wrong], "shapes") == []
    assert len(possible_bugs(target, [crash], "shapes")) == 1
