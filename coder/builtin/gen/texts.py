"""The text values a body's string operations call for: a string the body looks for in
a parameter (`s.startswith("--")`, `"@" in s`, `s.split(",")`) makes a value that holds
it (`"--abc"`, `"a@b"`, `"a,b"`); the characters it compares the parameter's items, or
the pieces of a split of it, with make values that hold each and all of them
(`"a{b}c:d!z"`); and the short strings the body spells."""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.usage import is_name as _is
from coder.builtin.gen.usage import method_call as _method_call

_FOUND_IN = {"split", "rsplit", "partition", "rpartition", "count", "find", "index", "replace"}
_FOUND_IN |= {"rfind", "rindex"}


def text_values(node: ast.FunctionDef, param: str) -> list[tuple[str, str]]:
    """Strings holding what the body looks for in `param`: (value, label)."""
    found: dict[str, str] = {}
    for child in ast.walk(node):
        method = _method_call(child, param)
        if method and isinstance(child, ast.Call) and child.args:
            text = _text(child.args[0])
            if text and method == "startswith":
                found.setdefault(f"{text}abc", f"{param}_starting_with_{_words(text)}")
            elif text and method == "endswith":
                found.setdefault(f"abc{text}", f"{param}_ending_with_{_words(text)}")
            elif text and method in _FOUND_IN:
                found.setdefault(f"a{text}b", f"{param}_with_{_words(text)}")
        elif isinstance(child, ast.Compare) and len(child.ops) == 1:
            inside = isinstance(child.ops[0], ast.In | ast.NotIn)
            text = _text(child.left)
            if inside and text and _is(child.comparators[0], param):
                found.setdefault(f"a{text}b", f"{param}_with_{_words(text)}")
    marks = _item_marks(node, param)
    for text in marks:
        found.setdefault(f"a{text}b", f"{param}_with_{_words(text)}")
    if len(marks) > 1:  # all of them in the order the body checks them: "a{b}c"
        spelled = "".join(f"{chr(ord('a') + n)}{text}" for n, text in enumerate(marks)) + "z"
        found.setdefault(spelled, f"{param}_with_{'_'.join(_words(t) for t in marks)}")
    return [(repr(value), label) for value, label in found.items()]


def _item_marks(node: ast.FunctionDef, param: str) -> list[str]:
    """The short strings the body compares an item of `param` with (`for c in text: if c
    == "{"`, `text[i] in ":!"`), in the order it checks them."""
    items = {param}  # `param[i]` reads an item
    for loop in ast.walk(node):
        if isinstance(loop, ast.For | ast.comprehension) and _over(loop.iter, param):
            target = loop.target
            if isinstance(target, ast.Tuple) and target.elts:  # enumerate(param)
                target = target.elts[-1]
            items |= {target.id} if isinstance(target, ast.Name) else set()
    found: list[str] = []
    for child in ast.walk(node):
        if not (isinstance(child, ast.Compare) and len(child.ops) == 1):
            continue
        sides = [child.left, child.comparators[0]]
        if not any(_item(side, items, param) for side in sides):
            continue
        chars = isinstance(child.ops[0], ast.In | ast.NotIn)  # `ch in ":!"`: each one
        for side in sides:
            texts = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            for text in map(_text, texts):
                for mark in text if chars and side is sides[1] else [text]:
                    if 0 < len(mark) <= 3 and mark not in found:
                        found.append(mark)
    return found[:4]


def _over(node: ast.expr, param: str) -> bool:
    """`param` itself, `enumerate(param)`, or its pieces (`param.split(",")`,
    `PARSE_RE.split(param)`)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "enumerate" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in _PIECES:
        owner = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        return _is(owner, param) or any(_is(arg, param) for arg in node.args)
    return _is(node, param)


_PIECES = {"split", "rsplit", "splitlines", "findall", "partition", "rpartition"}


def _item(node: ast.expr, items: set[str], param: str) -> bool:
    """An item of `param` (`param[i]`, a loop's variable) or its first or last character
    (`part[0]`)."""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _is(node.value, param) or _item(node.value, items, param)
    return isinstance(node, ast.Name) and node.id in items - {param}


def body_strings(node: ast.FunctionDef, limit: int = 6) -> list[tuple[str, str]]:
    """The short strings the body spells (dict keys, choices), as (value, label)."""
    doc = node.body[0] if node.body and _is_docstring(node.body[0]) else None
    found: dict[str, str] = {}
    for child in ast.walk(node):
        if child is doc or not isinstance(child, ast.Expr | ast.Constant):
            continue
        text = _text(child) if isinstance(child, ast.Constant) else ""
        if text.strip() and text.isprintable() and len(found) < limit:
            found.setdefault(repr(text), f"{_words(text)}")
    return [(value, label) for value, label in found.items()]


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) < 20:
        return node.value
    return ""


_SYMBOLS = {"-": "dash", "_": "underscore", ".": "dot", ",": "comma", "@": "at", "/": "slash"}
_SYMBOLS |= {":": "colon", " ": "space", "=": "equals", "#": "hash", "\n": "newline"}


def _words(text: str) -> str:
    spelled = "".join(ch if ch.isalnum() else f"_{_SYMBOLS.get(ch, '')}_" for ch in text)
    slug = re.sub(r"[^a-z0-9]+", "_", spelled.lower()).strip("_")
    return slug or "text"
