"""A docstring whose example binds a triple-quoted string over lines with no `...`
(docopt's usage text) still sets up the examples after it, and the module's own import
in the example is the test file's import."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.continued import with_continuations
from tests.helpers import function_source, generate, run_pytest_in

USAGE = """\
def parse(doc, argv):
    \"\"\"The words of argv that the usage in doc names.

    >>> from usage import parse
    >>> doc = '''
    Usage:
        prog tcp <host>

    Options:
        -v  Verbose.
    '''
    >>> parse(doc, ['tcp', 'h', '-v'])
    {'-v': True,
     'tcp': True}
    \"\"\"
    words = doc.split()
    return {word: True for word in argv if word in words}
"""


def test_the_lines_of_an_open_string_get_the_continuation_prompt() -> None:
    text = "    >>> doc = '''\n    a\n\n    b'''\n    >>> f(doc)\n    1\n"
    assert with_continuations(text) == (
        "    >>> doc = '''\n    ... a\n    ... \n    ... b'''\n    >>> f(doc)\n    1"
    )
    assert with_continuations(">>> s = '''one line'''\n'x'") == ">>> s = '''one line'''\n'x'"


def test_a_usage_string_over_lines_sets_up_the_documented_call(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"usage.py": USAGE}, "usage")
    test = function_source(generated.text, "test_parse_as_documented")
    tree = ast.parse(test)
    assigned = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    assert [ast.unparse(node.targets[0]) for node in assigned] == ["doc"]
    assert "Usage:" in ast.unparse(assigned[0].value)
    assert test.endswith('assert parse(doc, ["tcp", "h", "-v"]) == {"tcp": True, "-v": True}')
    assert "from usage import parse\n" in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
