"""The project's line length as its ruff, black or flake8 settings give it, and string
literals rewritten within it (implicit concatenations stay wrapped)."""

from __future__ import annotations

import ast

from coder.builtin.formatting import fill_string, line_limit
from coder.builtin.literals import render
from coder.builtin.repair.strings import rewrite_str
from coder.builtin.source import SourceText, make_edits


def test_the_line_length_comes_from_ruff_then_black_then_flake8() -> None:
    ruff = "[tool.ruff]\nline-length = 100\n\n[tool.black]\nline-length = 120\n"
    assert line_limit({"pyproject.toml": ruff}) == 100
    assert line_limit({"pyproject.toml": "[tool.black]\nline-length = 120\n"}) == 120
    assert line_limit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['E']\n"}) == 88
    assert line_limit({"ruff.toml": "line-length = 99\n", "pyproject.toml": ruff}) == 99
    assert line_limit({".ruff.toml": "[lint]\nselect = ['E']\n"}) == 88
    assert line_limit({"setup.cfg": "[flake8]\nmax-line-length = 110\n"}) == 110
    assert line_limit({"tox.ini": "[tox]\nenvlist = py3\n", ".flake8": "[flake8]\n"}) == 79


def test_no_formatter_configured_or_unreadable_settings_leave_lines_as_they_are() -> None:
    assert line_limit({}) is None
    assert line_limit({"pyproject.toml": "[project]\nname = 'x'\n"}) is None
    assert line_limit({"pyproject.toml": "not [ toml", "setup.cfg": "[metadata\n"}) is None


def test_a_long_text_is_split_after_spaces_within_the_limit() -> None:
    text = "Missing data for required field, and then some more words."

    def quoted(piece: str) -> str:
        return render(piece, '"')

    pieces = fill_string(text, quoted, first=8, indent=8, tail=0, limit=40)
    assert pieces is not None and len(pieces) > 1
    assert all(8 + len(piece) <= 40 for piece in pieces)
    assert "".join(ast.literal_eval(piece) for piece in pieces) == text
    assert fill_string("x" * 60, quoted, first=8, indent=8, tail=0, limit=40) is None


WRAPPED = """def test_message():
    assert check() == (
        "Missing data for "
        "required field."
    )
    assert other() == "short"
"""


def _rewritten(source: str, which: int, new: str, limit: int | None) -> str:
    text = SourceText(source)
    compares = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare)]
    replacement = rewrite_str(compares[which].comparators[0], new, text, '"', limit, "why")
    [edit] = make_edits("t.py", text, [replacement])
    return source.replace(edit.old, edit.new)


def test_only_the_piece_of_an_implicit_concatenation_that_changed_is_rewritten() -> None:
    text = _rewritten(WRAPPED, 0, "Missing data for the field.", 88)
    assert text == WRAPPED.replace('"required field."', '"the field."')


def test_a_change_across_pieces_is_split_over_the_same_lines_never_joined() -> None:
    new = "Field is required, and it was missing from the data that was given."
    text = _rewritten(WRAPPED, 0, new, 60)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert lines[1] == "    assert check() == (" and lines[-2] == "    )"
    assert len(lines) == len(WRAPPED.splitlines())  # two pieces, two lines
    tree = ast.parse(text)
    compare = next(node for node in ast.walk(tree) if isinstance(node, ast.Compare))
    assert ast.literal_eval(compare.comparators[0]) == new


def test_a_literal_that_would_overflow_is_wrapped_in_parentheses() -> None:
    new = "a much longer message that will not fit in the line length at all"
    text = _rewritten(WRAPPED, 1, new, 60)
    assert text.endswith(
        "    assert other() == (\n"
        '        "a much longer message that will not fit in the "\n'
        '        "line length at all"\n'
        "    )\n"
    )
    assert _rewritten(WRAPPED, 1, new, None) == WRAPPED.replace('"short"', f'"{new}"')


def test_a_literal_alone_in_parentheses_is_split_inside_them() -> None:
    source = "def test_x():\n    assert other() == (\n        'short'\n    )\n"
    new = "a much longer message that will not fit in the line length at all"
    text = SourceText(source)
    compare = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare))
    replacement = rewrite_str(compare.comparators[0], new, text, "'", 60, "why")
    [edit] = make_edits("t.py", text, [replacement])
    assert source.replace(edit.old, edit.new) == (
        "def test_x():\n    assert other() == (\n"
        "        'a much longer message that will not fit in the '\n"
        "        'line length at all'\n    )\n"
    )


def test_a_literal_that_fits_its_own_line_is_parenthesised_as_black_does() -> None:
    source = 'def test_x():\n    if True:\n        assert out == "just a small example link"\n'
    new = "just a small example link to a webpage, and a few more words here"
    text = SourceText(source)
    compare = next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare))
    [edit] = make_edits("t.py", text, [rewrite_str(compare.comparators[0], new, text, '"', 88, "")])
    assert source.replace(edit.old, edit.new).endswith(
        f'        assert out == (\n            "{new}"\n        )\n'
    )


def test_pieces_sharing_a_line_are_split_at_that_lines_indentation() -> None:
    source = (  # jinja2's test_urlize
        "def test_urlize():\n    assert render() == (\n"
        '        \'foo <a href="https://example.org" rel="noopener">\' "example.org</a> bar"\n'
        "    )\n"
    )
    new = 'foo <a href="https://example.org" rel="noopener noreferrer" target="_blank">'
    new += "example.org</a> bar"
    text = _rewritten(source, 0, new, 88)
    assert max(len(line) for line in text.splitlines()) <= 88
    compare = next(node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Compare))
    assert ast.literal_eval(compare.comparators[0]) == new
    assert all(line.startswith("        ") for line in text.splitlines()[2:-1])
