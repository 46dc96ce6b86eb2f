"""The source of a parametrized test from its columns and its body:

    @pytest.mark.parametrize(
        ("word", "expected"),
        [
            ("posts", "post"),
            ("sheep", "sheep"),
        ],
    )
    def test_singularize(word, expected):
        assert singularize(word) == expected

Rows and the header are split as ruff format splits long lines; a row two checks
share is written once.
"""

from __future__ import annotations

from coder.builtin.gen.layout import laid_out

_INDENT = "    "


def parametrized(name: str, columns: list[tuple[str, list[str]]], body: list[str]) -> str:
    """`columns` (each a name and its values, row by row) as a table over `body`'s lines."""
    names = [column for column, _ in columns]
    header = "(" + ", ".join(f'"{column}"' for column in names) + ("," * (len(names) == 1)) + ")"
    rows = dict.fromkeys(zip(*(values for _, values in columns), strict=True))  # once each
    lines = ["@pytest.mark.parametrize(", *laid_out(f"{header},", _INDENT), f"{_INDENT}["]
    for row in rows:
        lines += laid_out(f"({', '.join(row)}{',' * (len(row) == 1)}),", _INDENT * 2)
    lines += [f"{_INDENT}],", ")", f"def {name}({', '.join(names)}):"]
    lines += [out for line in body for out in laid_out(line, _INDENT)]
    return "\n".join(lines) + "\n"
