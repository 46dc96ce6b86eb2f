"""What the builtin generator probes: a Target (a function or method) and its Probes,
plus the small facts about a function node that both kinds of target need."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from coder.builtin.gen.calls import Call
from coder.builtin.gen.freeze import Freeze
from coder.builtin.gen.nodes import Function, methods

__all__ = ["Function", "methods"]  # re-exported: most of the generator imports them here


@dataclass
class Probe:
    """One input to try: statements that prepare it, then the call whose result counts."""

    call: Call
    setup: tuple[Call, ...] = ()
    """For a method: the constructor (bound to the target's variable), then any filler."""
    verbatim: bool = False
    """The setup is statements as written (a doctest's earlier lines), and the call is
    checked as a plain expression (no instance of the target's to observe)."""
    argv: tuple[str, ...] = ()
    """`sys.argv` while it runs, for a function that reads the command line (argv.py)."""

    def repeats(self) -> bool:
        """The call repeats the set-up's last step on the same key (an entry added twice),
        or the same call (a kept value asked for again)."""
        if not self.setup:
            return False
        last = self.setup[-1]
        return last.callee == self.call.callee and last.args[:1] == self.call.args[:1]


@dataclass
class Target:
    name: str
    """As the workflow names it: "average" or "Cart.add"."""
    span: tuple[int, int] = (0, 0)
    owner: str = ""
    var: str = ""
    init: bool = False
    """The target is the constructor: its test asserts the new instance's observers."""
    argument: bool = False
    """`var` is an argument the function changes in place (inplace.py), not an object."""
    probes: list[Probe] = field(default_factory=list)
    observers: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)
    varargs: str = ""
    """The name of its *args, if it takes them."""
    defaults: dict[str, str] = field(default_factory=dict)
    """Parameter -> its default's source, for the literal defaults."""
    skip: str = ""
    volatile: bool = False
    """It reads a clock or random source no test can pin: only its errors can be asserted,
    and the results of calls that ran none of `volatile_lines`."""
    volatile_lines: frozenset[int] = frozenset()
    """The module's lines that read such a source (freeze.volatile_lines)."""
    freeze: Freeze | None = None
    """How its tests pin the clocks and the random source it reads."""
    procedure: bool = False
    """It returns nothing (no `return value`): its None is not worth asserting."""
    documented: frozenset[str] = frozenset()
    """The exceptions its docstring names (`Raises: ValueError`): its tests may pin them."""
    messages: dict[int, tuple[str, bool]] = field(default_factory=dict)
    """The module's literal raise messages by line (messages.raise_messages)."""


def is_procedure(node: Function) -> bool:
    """It returns nothing: no `return value` of its own (a nested function's is not)."""
    returns = [n for n in own_nodes(node) if isinstance(n, ast.Return) and n.value is not None]
    return not returns and not is_generator(node)


def own_nodes(node: Function) -> list[ast.AST]:
    """The nodes of `node`'s body, without those of the functions and classes it defines."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        found.append(child)
        if not isinstance(
            child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
        ):
            todo.extend(ast.iter_child_nodes(child))
    return found


def is_generator(node: Function) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(node))


def wrapped(call: Call, wrap: str) -> Call:
    return Call(**{**call.__dict__, "wrap": wrap}) if wrap else call


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def decorators(node: Function | ast.ClassDef) -> set[str]:
    """The decorators' last names; a caching property (`functools.cached_property`,
    `cachedproperty`, `lazy_property`) also counts as "property": it is read, not called."""
    names = {ast.unparse(d).split("(")[0].split(".")[-1] for d in node.decorator_list}
    cached = any(name.lower().endswith("property") and name != "property" for name in names)
    return names | {"property"} if cached else names


def exceptions_named(node: ast.AST) -> frozenset[str]:
    """The exception classes a docstring names (`ValueError`, `MyError`, `KeyError`)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return frozenset()
    text = ast.get_docstring(node) or ""
    return frozenset(re.findall(r"\b([A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit))\b", text))
