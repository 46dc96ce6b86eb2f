"""Names a module imports from elsewhere, spelled in tests as their own module spells them.

boltons.timeutils does `from datetime import datetime` and `import time`; a docstring
example there reads `datetime.fromtimestamp(time.time())`. A test importing those names
from boltons.timeutils would lean on what the module happens to import, and would clash
with the `import datetime` that a value such as `datetime.datetime(1970, 1, 1)` needs. So
a test spells them from where they come from: `import datetime, time` and
`datetime.datetime.fromtimestamp(time.time())`.

Only the module's top-level absolute imports count: a name bound inside `try:` (a
fallback) or imported relatively stays the module's own.
"""

from __future__ import annotations

import ast

Origins = dict[str, tuple[str, str]]
"""Name -> (the module a test imports, the expression it writes for the name)."""


def imported_names(tree: ast.Module) -> Origins:
    found: Origins = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "__future__":
                continue
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (node.module, f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:  # `import a.b` binds a, and a.b.f() works
                    root = alias.name.split(".")[0]
                    found[root] = (alias.name, root)
    return found


def respelled(statements: list[ast.stmt], names: set[str], origins: Origins) -> list[ast.stmt]:
    """`statements` with each of `names` read as its origin spells it."""
    spelled = {name: ast.parse(origins[name][1], mode="eval").body for name in names}

    class _Respell(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in spelled and isinstance(node.ctx, ast.Load):
                return ast.copy_location(spelled[node.id], node)
            return node

    return [_Respell().visit(ast.parse(ast.unparse(stmt)).body[0]) for stmt in statements]
