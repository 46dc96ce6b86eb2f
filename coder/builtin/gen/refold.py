"""A run's tests folded together once its passes are done.

Each pass over a module folds its own tests into tables (regroup.py, views.py,
compares.py) and joins a docstring's sequels (sequels.py); a later
pass's test of a function or an object already in a table stood beside that table. Once
every pass has written its tests, those the run kept are read back from the test file
and folded as if one pass had written them all:

    test_json_pointer_views        (str, get_parts)     first pass
    test_json_pointer_repr         repr(json_pointer)   a later pass

become one table of three views. Only the run's own tests are read, only in the plain
shapes the generator writes (a test with a comment keeps its words: it is left as it
is); the rest of the file is untouched. The workflow runs the folded file before it
keeps it (coder/workflows/gen/tidy.py).
"""

from __future__ import annotations

import ast
import io
import tokenize

from coder.builtin.gen.compares import operated
from coder.builtin.gen.regroup import Pair, regrouped
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.sequels import merged_sequels
from coder.builtin.gen.targets import find_targets
from coder.builtin.gen.testfile import ImportStyle, import_style, merged, test_names
from coder.builtin.gen.types import Target
from coder.builtin.gen.views import viewed


def refolded(text: str, source: str, module: str, ours: set[str]) -> str | None:
    """`text` (a test file) with the tests named `ours` folded into fewer tables, or
    None when none fold (`source`: the module `module` the tests are of). A table that
    takes rows into an earlier one keeps its name."""
    try:
        tree = ast.parse(text)
        targets = {target.name: target for target in find_targets(source, [], module)}
    except SyntaxError:
        return None
    style = import_style(text, module)
    lines = text.splitlines()
    read = [_read(node, lines, targets, style) for node in tree.body if _ours(node, ours)]
    found = [item for item in read if item is not None]
    pairs, spans = [pair for pair, _ in found], [span for _, span in found]
    others = test_names(text) - {test.name for _, test in pairs}
    tests, _ = regrouped(pairs, targets, others)
    tests, _ = merged_sequels(*operated(*viewed(tests, targets, style.prefix, others), others))
    if len(tests) >= len(pairs):
        return None
    for start, end in sorted(spans, reverse=True):
        while start > 1 and not lines[start - 2].strip():
            start -= 1  # the blank lines before it go with it
        del lines[start - 1 : end]
    rest = "\n".join(lines).rstrip() + "\n"
    return merged(rest, module, import_style(rest, module), [test for _, test in tests])


def _ours(node: ast.stmt, ours: set[str]) -> bool:
    return isinstance(node, ast.FunctionDef) and node.name in ours


def _read(
    node: ast.stmt, lines: list[str], targets: dict[str, Target], style: ImportStyle
) -> tuple[Pair, tuple[int, int]] | None:
    """The test as the generator's own (its target's name and the test), and its lines;
    None for a test with comments."""
    assert isinstance(node, ast.FunctionDef) and node.end_lineno is not None
    start = min([node.lineno, *(mark.lineno for mark in node.decorator_list)])
    source = "\n".join(lines[start - 1 : node.end_lineno]) + "\n"
    if _commented(source):
        return None
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    test = Rendered(node.name, source, used & set(style.names), "pytest" in used)
    return (_target(node, targets, style.prefix), test), (start, node.end_lineno)


def _commented(source: str) -> bool:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        return any(token.type == tokenize.COMMENT for token in tokens)
    except (tokenize.TokenError, SyntaxError):
        return True


def _target(function: ast.FunctionDef, targets: dict[str, Target], prefix: str) -> str:
    """The target the test checks: the method it calls on the object its set-up builds
    (`Cls.method`), or else the first target it calls ("" for none)."""
    built = _built_class(function, prefix)
    calls = [node.func for node in ast.walk(function) if isinstance(node, ast.Call)]
    methods = [f.attr for f in calls if isinstance(f, ast.Attribute) and _on(f, built)]
    for method in methods:
        if built and f"{built[1]}.{method}" in targets:
            return f"{built[1]}.{method}"
    for func in calls:
        name = ast.unparse(func).removeprefix(prefix)
        if name in targets:
            return name
    return ""


def _on(func: ast.Attribute, built: tuple[str, str] | None) -> bool:
    return built is not None and ast.unparse(func.value) == built[0]


def _built_class(function: ast.FunctionDef, prefix: str) -> tuple[str, str] | None:
    """(variable, class) when the test's first statement builds an object of a class,
    `var = Cls(...)` or `var = Cls.factory(...)`."""
    first = function.body[0] if function.body else None
    if not isinstance(first, ast.Assign) or len(first.targets) != 1:
        return None
    var, value = first.targets[0], first.value
    if not isinstance(var, ast.Name) or not isinstance(value, ast.Call):
        return None
    head = value.func.value if isinstance(value.func, ast.Attribute) else value.func
    name = ast.unparse(head).removeprefix(prefix)
    return (var.id, name) if name[:1].isupper() and "." not in name else None
