"""The type of an unannotated parameter, read from its docstring or from how the body
uses it, and the text values its string operations call for.

In that order: the docstring (`:type text: str`, `:param str text:`, Google's
`text (str): ...`, NumPy's `text : str`, with "or", "list of" and ", optional" read as
typing writes them); then the body: `isinstance(text, (list, Mapping))`, string methods
(`text.lower()`), mapping ones (`d.items()`), a file's (`f.read()`, `f.seek(0)`),
`append`, arithmetic with a number, `range(n)`, iteration (`for x in items`,
`list(items)`, `self.extend(items)`), a slice's parts (`index.start`, as `__getitem__`
reads one). A string
the body looks for in a parameter (`s.startswith("--")`, `"@" in s`, `s.split(",")`)
makes a value that holds it (`"--abc"`, `"a@b"`, `"a,b"`).
"""

from __future__ import annotations

import ast
import re

_STR_METHODS = {
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "join",
    "startswith", "endswith", "replace", "isupper", "islower", "isdigit", "isnumeric",
    "isalpha", "isalnum", "isspace", "title", "capitalize", "casefold", "encode", "format",
    "zfill", "center", "ljust", "rjust", "partition", "rpartition", "swapcase", "expandtabs",
}  # fmt: skip
_DICT_METHODS = {"items", "keys", "values", "setdefault"}
_DATETIME_METHODS = {"weekday", "isoweekday", "isoformat", "strftime", "timetuple", "date"}
_DATETIME_METHODS |= {"toordinal", "astimezone", "utcoffset", "timestamp", "isocalendar"}
_DATETIME_METHODS |= {".year", ".month", ".day", ".hour", ".minute", ".tzinfo"}
_TIMEDELTA_METHODS = {"total_seconds", ".days", ".seconds", ".microseconds"}
_LIST_METHODS = {"append", "extend", "sort", "insert"}
_SLICE_READS = {".start", ".stop", ".step"}
_FILE_METHODS = {"read", "readline", "readlines", "seek", "tell", "fileno", "truncate"}
_FOUND_IN = {"split", "rsplit", "partition", "rpartition", "count", "find", "index", "replace"}
_FOUND_IN |= {"rfind", "rindex"}
_ISINSTANCE_NAMES = {"Mapping": "dict", "MutableMapping": "dict", "Sequence": "list"}
_ISINSTANCE_NAMES |= {"Iterable": "list", "Number": "float", "Integral": "int", "Real": "float"}


def usage_hint(node: ast.FunctionDef, param: str) -> tuple[ast.expr | None, str]:
    """A type annotation for `param`, and where it came from: "hint" when the docstring
    says it, "guess" when the body suggests it (None when neither does)."""
    documented = _documented(ast.get_docstring(node) or "", param)
    text = documented or _used_as(node, param)
    try:
        hint = ast.parse(text, mode="eval").body if text else None
    except SyntaxError:
        hint = None
    return hint, "hint" if documented else "guess"


def _documented(doc: str, param: str) -> str:
    name = re.escape(param)
    patterns = [
        rf":type\s+{name}\s*:\s*(.+)",
        rf":param\s+([\w\[\], .|]+?)\s+{name}\s*:",
        rf"^\s*{name}\s*\(([^)]+)\)\s*:",
        rf"^\s*{name}\s+:\s+(.+)",
    ]
    for pattern in patterns:
        found = re.search(pattern, doc, re.MULTILINE)
        if found:
            return _typing(found.group(1))
    return ""


def _typing(text: str) -> str:
    """Docstring type prose as an annotation: "list of str or None" -> "list[str] | None"."""
    text = re.sub(r",?\s*optional\b", "", text.strip()).strip(" .")
    text = re.sub(r"\b(list|set|tuple|iterable|sequence) of (\w+)", r"\1[\2]", text, flags=re.I)
    text = re.sub(r"\s+or\s+", " | ", text)
    return text if re.fullmatch(r"[\w\[\]., |]+", text) else ""


def _used_as(node: ast.FunctionDef, param: str) -> str:
    """The kinds the body's methods call for first (the main case), then the ones its
    isinstance checks single out."""
    methods = {_method_call(child, param) for child in ast.walk(node)} - {""}
    methods |= {_read(child, param) for child in ast.walk(node)} - {""}
    kinds = [
        kind
        for found, kind in (
            (_STR_METHODS, "str"),
            (_DICT_METHODS, "dict"),
            (_LIST_METHODS, "list"),
            (_DATETIME_METHODS, "datetime"),
            (_TIMEDELTA_METHODS, "timedelta"),
            (_SLICE_READS, "slice"),
            (_FILE_METHODS, "file"),
        )
        if methods & found
    ]
    if any(_joined(child, param) or _searched(child, param) for child in ast.walk(node)):
        kinds.append("str")
    if any(_numeric(child, param) for child in ast.walk(node)):
        kinds.append("int")
    if any(_iterated(child, param) for child in ast.walk(node)):
        kinds.append("list")
    for child in ast.walk(node):
        kinds += _isinstance_kinds(child, param)
    return " | ".join(dict.fromkeys(kinds))


def _isinstance_kinds(node: ast.AST, param: str) -> list[str]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return []
    if node.func.id != "isinstance" or len(node.args) != 2 or not _is(node.args[0], param):
        return []
    kinds = node.args[1]
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    found = []
    for item in names:
        name = item.id if isinstance(item, ast.Name) else getattr(item, "attr", "")
        found.append(_ISINSTANCE_NAMES.get(name, name))
    return [name for name in found if name]


def _method_call(node: ast.AST, param: str) -> str:
    """The method's name when `node` calls one on `param` (`param.lower()`), else ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr if _is(node.func.value, param) else ""
    return ""


def _numeric(node: ast.AST, param: str) -> bool:
    """`param + 1`, `param * 2.5`, `range(param)`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        sides = [(node.left, node.right), (node.right, node.left)]
        return any(_is(a, param) and _number(b) for a, b in sides)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "range" and any(_is(arg, param) for arg in node.args)
    return False


def _iterated(node: ast.AST, param: str) -> bool:
    """`for x in param`, `[... for x in param]`, `list(param)`, `sorted(param)`,
    `self.items.extend(param)`: a collection."""
    if isinstance(node, ast.For | ast.comprehension):
        return _is(node.iter, param)
    if not isinstance(node, ast.Call) or not any(_is(arg, param) for arg in node.args[:1]):
        return False
    if isinstance(node.func, ast.Attribute):
        return node.func.attr == "extend"
    return isinstance(node.func, ast.Name) and node.func.id in _COLLECTING


_COLLECTING = {"list", "tuple", "set", "frozenset", "sorted", "reversed", "enumerate", "sum"}


def _read(node: ast.AST, param: str) -> str:
    """ ".year" when `node` reads `param.year` (not as a call's callee)."""
    if isinstance(node, ast.Attribute) and _is(node.value, param):
        return f".{node.attr}"
    return ""


def _joined(node: ast.AST, param: str) -> bool:
    """`param + "s"`, `"-" + param`: text joined to text."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        sides = [(node.left, node.right), (node.right, node.left)]
        return any(_is(a, param) and _text_constant(b) for a, b in sides)
    return False


_RE_TEXT = {"match": 1, "search": 1, "fullmatch": 1, "findall": 1, "finditer": 1, "split": 1}
_RE_TEXT |= {"sub": 2, "subn": 2}
"""The `re` functions, each with the position of the text it searches."""


def _searched(node: ast.AST, param: str) -> bool:
    """`re.findall(pattern, param)`, `re.sub(pattern, repl, param)`: text a regex reads."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    owner, position = node.func.value, _RE_TEXT.get(node.func.attr, -1)
    if not (isinstance(owner, ast.Name) and owner.id == "re") or position >= len(node.args):
        return False
    return position >= 0 and _is(node.args[position], param)


def _text_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is(node: ast.expr, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param


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
    """`param` itself, or `enumerate(param)`."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "enumerate" and node.args:
        node = node.args[0]
    return _is(node, param)


def _item(node: ast.expr, items: set[str], param: str) -> bool:
    if isinstance(node, ast.Subscript):
        return _is(node.value, param) and not isinstance(node.slice, ast.Slice)
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
