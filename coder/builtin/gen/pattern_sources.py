"""Where a module's regular expressions are, and which of them a parameter reaches.

A pattern is a string the module compiles or hands to `re`: a literal, a module-level
string, or one the module puts together from those at import time,

    SMALL = r"a|an|the"
    SMALL_WORDS = regex.compile(r"^(%s)$" % SMALL, regex.I)

(`%`, `+`, `str.format` and `"|".join([...])` of known strings), at the module's top
level, in its `if`/`try` blocks (a pattern the standard library cannot compile does not
replace one it can: `\\p{Letter}` needs the third-party `regex`) and in its classes.

A parameter reaches a pattern when it, or a name made from it, is what the pattern
matches: `word` in `for word in text.split(): if MAC_MC.match(word)` comes from `text`,
so strings `MAC_MC` accepts are inputs for `text`. The `re` module goes by any name the
module imports it as (`import re as regex`, and the `regex` package, which has re's
functions).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Set
from itertools import zip_longest

from coder.builtin.gen.regex_values import regex_strings

Patterns = dict[str, tuple[str, int]]
"""{NAME: (pattern, flags)}: a module's compiled patterns and string constants."""
_MATCHERS = {"match", "fullmatch", "search", "findall", "finditer", "split", "sub"}
_RE_MODULES = {"re", "regex"}


def module_patterns(tree: ast.Module) -> Patterns:
    """{NAME: (pattern, flags)} for `NAME = re.compile(TEXT, flags)` and string
    constants at the module's top level, in its `if`/`try` blocks and in its classes'
    bodies."""
    found: Patterns = {}
    for node in _statements(tree.body):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Name):
            continue
        compiled = _compiled(value, found)
        if compiled and (target.id not in found or _compiles(*compiled)):
            found[target.id] = compiled
    return found


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements run at import time: the top level, `if` and `try` blocks, class bodies."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += _statements([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            handlers = [stmt for handler in node.handlers for stmt in handler.body]
            found += _statements([*node.body, *handlers, *node.orelse])
        elif isinstance(node, ast.ClassDef):
            found += _statements(node.body)
    return found


def _compiled(value: ast.expr, known: Patterns) -> tuple[str, int] | None:
    """A string constant as a pattern with no flags, or a `compile(TEXT, flags)` call."""
    strings = {name: pattern for name, (pattern, _) in known.items()}
    if isinstance(value, ast.Call) and _compile_call(value):
        text = folded(value.args[0], strings)
        flags = _flags(value.args[1]) if len(value.args) > 1 else _keyword_flags(value)
        return (text, flags) if text is not None else None
    text = folded(value, strings)
    return (text, 0) if text is not None else None


def _compiles(pattern: str, flags: int) -> bool:
    try:
        re.compile(pattern, flags)
    except (re.error, ValueError, OverflowError, RecursionError):
        return False
    return True


def folded(node: ast.expr, strings: dict[str, str]) -> str | None:
    """The text an expression of string literals and known names makes at import time,
    or None when it is anything else."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _operated(node, strings)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _method(node, strings)
    return None


def _operated(node: ast.BinOp, strings: dict[str, str]) -> str | None:
    left = folded(node.left, strings)
    parts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    right = [folded(part, strings) for part in parts]
    if left is None or None in right:
        return None
    if isinstance(node.op, ast.Add):
        return left + right[0] if len(right) == 1 and right[0] is not None else None
    try:
        return left % tuple(right)
    except (TypeError, ValueError, KeyError):
        return None


def _method(node: ast.Call, strings: dict[str, str]) -> str | None:
    """`"...{}".format(A, B)` and `"|".join([A, B])` of known strings."""
    func = node.func
    owner = folded(func.value, strings) if isinstance(func, ast.Attribute) else None
    if owner is None or node.keywords or not isinstance(func, ast.Attribute):
        return None
    if (
        func.attr == "join"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.List | ast.Tuple)
    ):
        parts = [folded(item, strings) for item in node.args[0].elts]
        return owner.join(parts) if None not in parts else None  # type: ignore[arg-type]
    if func.attr == "format":
        args = [folded(arg, strings) for arg in node.args]
        try:
            return owner.format(*args) if None not in args else None
        except (IndexError, KeyError, ValueError):
            return None
    return None


def _compile_call(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr == "compile" and bool(node.args)


def _keyword_flags(node: ast.Call) -> int:
    return next((_flags(k.value) for k in node.keywords if k.arg == "flags"), 0)


def _flags(node: ast.expr) -> int:
    """`re.X | re.I` as a number (0 for what it cannot read)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    if isinstance(node, ast.Attribute):
        return int(getattr(re, node.attr, 0))
    return 0


def re_names(tree: ast.Module) -> set[str]:
    """The names the module calls `re` by: `re`, `import re as _re`, `import regex`."""
    found = {"re"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname or a.name for a in node.names if a.name in _RE_MODULES}
    return found


def pattern_strings(
    node: ast.AST, param: str, patterns: Patterns, re_aliases: Set[str]
) -> tuple[list[str], list[str]]:
    """The strings of the patterns the parameter itself must match whole (`match`,
    `fullmatch`: a parser's input), and of those it, or a name made from it, is searched
    or split with (the text contains them: `"a\ra"` for a split at `[\r\n]`)."""
    flows = flowing_names(node, param)
    strings = {name: pattern for name, (pattern, _) in patterns.items()}
    whole: list[list[str]] = []
    inside: list[list[str]] = []
    for call in ast.walk(node):
        found = _matched_by(call, flows, patterns, strings, re_aliases)
        if found is None:
            continue
        method, subject, texts = found
        if method == "split":
            texts = [f"a{text}a" for text in texts if text]
        direct = method in ("match", "fullmatch") and subject == param
        (whole if direct else inside).append(texts)
    return _taking_turns(whole), _taking_turns(inside)


def _matched_by(
    call: ast.AST, flows: set[str], patterns: Patterns, strings: dict[str, str], aliases: Set[str]
) -> tuple[str, str, list[str]] | None:
    """(method, the name matched, the pattern's strings) for a matching call of a
    flowing name: `NAME.match(x)`, `self.NAME.match(x)`, `re.match(PATTERN, x)`."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    args, owner, method = call.args, call.func.value, call.func.attr
    if method not in _MATCHERS or not args:
        return None
    name = owner.id if isinstance(owner, ast.Name) else ""
    name = owner.attr if isinstance(owner, ast.Attribute) else name
    if name in patterns and _flowing(args[0], flows):
        return method, ast.unparse(args[0]), regex_strings(*patterns[name])
    if name in aliases and len(args) >= 2 and _flowing(args[1], flows):
        pattern = folded(args[0], strings)
        flags = _keyword_flags(call) if len(args) < 3 else _flags(args[2])
        texts = regex_strings(pattern, flags) if pattern is not None else []
        return method, ast.unparse(args[1]), texts
    return None


def _taking_turns(lists: list[list[str]]) -> list[str]:
    """The first string of each pattern, then the second of each, and so on: each
    pattern is reached before one pattern's variants take up the calls."""
    rounds = zip_longest(*lists)
    return list(dict.fromkeys(text for row in rounds for text in row if text is not None))


def _flowing(node: ast.expr, flows: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in flows


def flowing_names(node: ast.AST, param: str) -> set[str]:
    """`param` and the names bound from it, directly or through others: assignments whose
    value reads one, and loop targets over one (`for word in words`)."""
    flows = {param}
    bindings = [
        n for n in ast.walk(node) if isinstance(n, ast.Assign | ast.For | ast.comprehension)
    ]
    while True:
        grown = set(flows)
        for binding in bindings:
            value = binding.value if isinstance(binding, ast.Assign) else binding.iter
            if _reads(value, grown):
                targets = binding.targets if isinstance(binding, ast.Assign) else [binding.target]
                grown |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if grown == flows:
            return flows
        flows = grown


def _reads(node: ast.expr, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))
