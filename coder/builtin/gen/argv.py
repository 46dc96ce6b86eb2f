"""Functions that read the command line, and the command lines to call them with.

A function that reads `sys.argv`, or calls argparse's `parse_args()` with no arguments
(which reads `sys.argv[1:]`), directly or through the module's own functions, takes its
input from the command line, not its parameters. Its probes set `sys.argv` first, as its
test does with monkeypatch:

    def test_main_with_argv_reverse_m(monkeypatch, capsys):
        monkeypatch.setattr("sys.argv", ["roman", "--reverse", "M"])
        assert main() == 0
        assert capsys.readouterr().out == "1000\n"

The command lines come from the module's own `add_argument` calls: each positional gets
a value (its `choices`, a number for `type=int`, else the module's short words and
numbers in turn), alone and with each option (a flag by itself, an option with a value).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.gen.nodes import Function

MAX_COMMAND_LINES = 8
MAX_VALUES = 3
"""Values tried for the positionals, each alone and with every option."""
MAX_WORD = 12
_FLAG_ACTIONS = {"store_true", "store_false", "count", "store_const", "append_const"}
_EXITS = {"help", "version"}


@dataclass(frozen=True)
class Option:
    """One `add_argument`: its spelling on the command line and what follows it."""

    flag: str
    """"--reverse" (the long name when it has one), or "" for a positional."""
    takes_value: bool = True
    values: tuple[str, ...] = ()
    """Values from `choices`, or one from `type=int`, when it says."""


def argv_readers(tree: ast.Module) -> set[str]:
    """Names of the module's functions that read the command line, directly or through
    the module's other functions."""
    nodes = [n for n in ast.walk(tree) if isinstance(n, Function)]
    found = {n.name for n in nodes if _reads_argv(n)}
    uses = {n.name: {c.id for c in ast.walk(n) if isinstance(c, ast.Name)} for n in nodes}
    changed = True
    while changed:
        more = {name for name, used in uses.items() if used & found} - found
        found |= more
        changed = bool(more)
    return found


def command_lines(tree: ast.Module, program: str) -> list[tuple[str, ...]]:
    """`sys.argv` values to probe with: the program's name, then its arguments."""
    options = [o for o in (_option(c) for c in _add_argument_calls(tree)) if o is not None]
    positionals = [o for o in options if not o.flag]
    flags = [o for o in options if o.flag]
    found: list[tuple[str, ...]] = []
    for value in _positional_values(tree, positionals):
        found.append((program, *value))
        for option in flags:
            extra = (option.flag, *option.values[:1]) if option.takes_value else (option.flag,)
            found.append((program, *extra, *value))
    return list(dict.fromkeys(found))[:MAX_COMMAND_LINES]


def _reads_argv(node: Function) -> bool:
    for child in ast.walk(node):
        if _is_sys_argv(child):
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
            parses = child.func.attr in ("parse_args", "parse_known_args")
            if parses and not child.args and not child.keywords:
                return True
    return False


def _is_sys_argv(node: ast.AST) -> bool:
    if not isinstance(node, ast.Attribute) or node.attr != "argv":
        return False
    return isinstance(node.value, ast.Name) and node.value.id == "sys"


def _add_argument_calls(tree: ast.Module) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "add_argument"
    ]


def _option(call: ast.Call) -> Option | None:
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not names:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    action = _text(keywords.get("action"))
    if action in _EXITS:
        return None
    values = _choices(keywords.get("choices")) or _typed(keywords.get("type"))
    if not names[0].startswith("-"):
        return Option("", True, values)
    longest = max(names, key=len)
    return Option(longest, action not in _FLAG_ACTIONS, values or ("1",))


def _positional_values(tree: ast.Module, positionals: list[Option]) -> list[tuple[str, ...]]:
    """Up to MAX_VALUES argument lists, one value per positional: its own values when
    it says, else the module's words and numbers in turn."""
    if not positionals:
        return [()]
    pool = _module_words(tree)
    rows = []
    for index in range(MAX_VALUES):
        row = []
        for option in positionals:
            own = option.values or pool
            row.append(own[index % len(own)])
        rows.append(tuple(row))
    return list(dict.fromkeys(rows))


def _module_words(tree: ast.Module) -> tuple[str, ...]:
    """Numbers and short words the module writes, alternating, numbers first."""
    numbers, words = ["1"], []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
            continue
        if isinstance(node.value, int) and 0 <= node.value < 10**6:
            numbers.append(str(node.value))
        elif isinstance(node.value, str) and 0 < len(node.value) <= MAX_WORD:
            words += [node.value] if node.value.isalnum() else []
    numbers, words = list(dict.fromkeys(numbers)), list(dict.fromkeys(words))
    mixed = [v for pair in zip(numbers, words, strict=False) for v in pair]
    longer = numbers if len(numbers) > len(words) else words
    return tuple(mixed + longer[min(len(numbers), len(words)) :])


def _choices(node: ast.expr | None) -> tuple[str, ...]:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return tuple(str(e.value) for e in node.elts if isinstance(e, ast.Constant))
    return ()


def _typed(node: ast.expr | None) -> tuple[str, ...]:
    if isinstance(node, ast.Name) and node.id == "int":
        return ("1", "0")
    if isinstance(node, ast.Name) and node.id == "float":
        return ("1.5",)
    return ()


def _text(node: ast.expr | None) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
