"""The type of an unannotated parameter, read from its docstring or from how the body
uses it (texts.py has the text values its string operations call for).

In that order: the docstring (`:type text: str`, `:param str text:`, Google's
`text (str): ...`, NumPy's `text : str`, with "or", "list of" and ", optional" read as
typing writes them); then the body: `isinstance(text, (list, Mapping))`, string methods
(`text.lower()`), mapping ones (`d.items()`), a file's (`f.read()`, `f.seek(0)`),
`append`, a set's `add`, arithmetic with a number, `range(n)`, iteration (`for x in items`,
`list(items)`, `self.extend(items)`), a call of it (`key(item)`: a callable), a slice's
parts (`index.start`, as `__getitem__` reads one), a check of its type (`isinstance(x,
dict)`, `type(x) in (set, frozenset)`).
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
_SET_METHODS = {"add", "discard"}
_SLICE_READS = {".start", ".stop", ".step"}
_FILE_METHODS = {"read", "readline", "readlines", "seek", "tell", "fileno", "truncate"}
_ISINSTANCE_NAMES = {"Mapping": "dict", "MutableMapping": "dict", "Sequence": "list"}
_ISINSTANCE_NAMES |= {"Iterable": "list", "Number": "float", "Integral": "int", "Real": "float"}


def usage_hint(node: ast.FunctionDef, param: str) -> tuple[ast.expr | None, str]:
    """A type annotation for `param`, and where it came from: "hint" when the docstring
    says it, "guess" when the body suggests it (None when neither does)."""
    documented = documented_type(ast.get_docstring(node) or "", param)
    text = documented or _used_as(node, param)
    try:
        hint = ast.parse(text, mode="eval").body if text else None
    except SyntaxError:
        hint = None
    return hint, "hint" if documented else "guess"


def documented_type(doc: str, param: str) -> str:
    """The type the docstring gives `param` ("" when it gives none)."""
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
    isinstance checks single out; a callable when the body calls it (`key(item)`)."""
    if any(_called(child, param) for child in ast.walk(node)):
        return "Callable"
    methods = {method_call(child, param) for child in ast.walk(node)} - {""}
    methods |= {_read(child, param) for child in ast.walk(node)} - {""}
    kinds = [
        kind
        for found, kind in (
            (_STR_METHODS, "str"),
            (_DICT_METHODS, "dict"),
            (_LIST_METHODS, "list"),
            (_SET_METHODS, "set"),
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
    checked = checked_kinds(node, param)
    kinds += sorted(checked, key=lambda kind: kind not in _BUILTIN_KINDS)  # the module's last
    return " | ".join(dict.fromkeys(kinds))


def _called(node: ast.AST, param: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == param


_BUILTIN_KINDS = {"str", "int", "float", "bool", "bytes", "list", "tuple", "dict", "set"}
_BUILTIN_KINDS |= {"frozenset"}


_NUMBERS_ONLY = ast.LShift | ast.RShift | ast.FloorDiv | ast.Pow
"""Operators no text, list or set takes."""


def checked_kinds(node: ast.FunctionDef, param: str) -> list[str]:
    """The kinds the body tells `param` apart by (isinstance, `type(param) is`)."""
    return [kind for child in ast.walk(node) for kind in _isinstance_kinds(child, param)]


def type_checked(node: ast.AST, param: str) -> bool:
    """`isinstance(param, ...)` or `type(param)` (on either side of a comparison)."""
    return _isinstance(node, param) or (isinstance(node, ast.expr) and _type_of(node, param))


def _isinstance_kinds(node: ast.AST, param: str) -> list[str]:
    """The kinds of `isinstance(param, kinds)`, `type(param) is kind`, `type(param) in
    (kinds)`."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and _type_of(node.left, param):
        kinds = node.comparators[0]
    elif _isinstance(node, param):
        assert isinstance(node, ast.Call)
        kinds = node.args[1]
    else:
        return []
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    found = []
    for item in names:
        name = item.id if isinstance(item, ast.Name) else getattr(item, "attr", "")
        found.append(_ISINSTANCE_NAMES.get(name, name))
    return [name for name in found if name]


def _isinstance(node: ast.AST, param: str) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    return node.func.id == "isinstance" and len(node.args) == 2 and is_name(node.args[0], param)


def _type_of(node: ast.expr, param: str) -> bool:
    """`type(param)`."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    return node.func.id == "type" and len(node.args) == 1 and is_name(node.args[0], param)


def method_call(node: ast.AST, param: str) -> str:
    """The method's name when `node` calls one on `param` (`param.lower()`), else ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr if is_name(node.func.value, param) else ""
    return ""


def _numeric(node: ast.AST, param: str) -> bool:
    """`param + 1`, `param * 2.5`, `range(param)`, `bits >> param`, `param // n`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NUMBERS_ONLY):
        return is_name(node.left, param) or is_name(node.right, param)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        sides = [(node.left, node.right), (node.right, node.left)]
        return any(is_name(a, param) and _number(b) for a, b in sides)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "range" and any(is_name(arg, param) for arg in node.args)
    return False


def _iterated(node: ast.AST, param: str) -> bool:
    """`for x in param`, `[... for x in param]`, `list(param)`, `sorted(param)`,
    `self.items.extend(param)`: a collection."""
    if isinstance(node, ast.For | ast.comprehension):
        return is_name(node.iter, param)
    if not isinstance(node, ast.Call) or not any(is_name(arg, param) for arg in node.args[:1]):
        return False
    if isinstance(node.func, ast.Attribute):
        return node.func.attr == "extend"
    return isinstance(node.func, ast.Name) and node.func.id in _COLLECTING


_COLLECTING = {"list", "tuple", "set", "frozenset", "sorted", "reversed", "enumerate", "sum"}


def _read(node: ast.AST, param: str) -> str:
    """ ".year" when `node` reads `param.year` (not as a call's callee)."""
    if isinstance(node, ast.Attribute) and is_name(node.value, param):
        return f".{node.attr}"
    return ""


def _joined(node: ast.AST, param: str) -> bool:
    """`param + "s"`, `"-" + param`: text joined to text."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        sides = [(node.left, node.right), (node.right, node.left)]
        return any(is_name(a, param) and _text_constant(b) for a, b in sides)
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
    return position >= 0 and is_name(node.args[position], param)


def _text_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def is_name(node: ast.expr, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param
