"""Which functions read the clock or a random source, and how a test can pin them.

A function that reads `time.time()` (or `time_ns`, `monotonic`, `perf_counter`) and the
module-level functions of `random` returns the same result in every run once its test
freezes those clocks with monkeypatch and seeds `random`:

    def test_expires_at_with_ttl_seconds_60(monkeypatch):
        monkeypatch.setattr("time.time", lambda: 1_700_000_000.0)
        assert expires_at(ttl_seconds=60) == 1700000060.0

Environment variables read by literal name (`os.environ.get("NO_COLOR")`,
`os.getenv("TZ")`, `"CI" in os.environ`) are unset with `monkeypatch.delenv`, so the
test does not depend on the shell it runs in. Any other source (`datetime.now()`,
`uuid`, `secrets`, a private `random.Random()`, `time.localtime()`, the environment read
by a computed name) cannot be pinned that way: such a function stays volatile, and only
the errors it raises are asserted. Sources reached through the module's own functions
count too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

VOLATILE_MODULES = {"time", "datetime", "random", "uuid", "secrets", "os"}
CLOCKS = {
    "time": "1_700_000_000.0",
    "monotonic": "1_700_000_000.0",
    "perf_counter": "1_700_000_000.0",
    "time_ns": "1_700_000_000_000_000_000",
    "monotonic_ns": "1_700_000_000_000_000_000",
    "perf_counter_ns": "1_700_000_000_000_000_000",
}
"""Clock functions a test can freeze, and the value each returns while frozen."""
HARMLESS = {"sleep"}
TODAY = {"now", "today", "utcnow"}
SEEDED = {
    "random", "randrange", "randint", "choice", "choices", "shuffle", "sample", "uniform",
    "gauss", "normalvariate", "lognormvariate", "triangular", "betavariate", "expovariate",
    "gammavariate", "paretovariate", "weibullvariate", "vonmisesvariate", "getrandbits",
    "randbytes", "binomialvariate",
}  # fmt: skip
"""Functions of `random` that draw from its global generator, which `random.seed` pins."""
SEED = 1234
MAX_LOOP_LINE = 92
"""Past this, each variable gets its own delenv line (the loop would not fit one)."""
RANDOM = "random"
OTHER = "other"
ENV = "env:"
"""Source markers: the seeded global generator, and anything that cannot be pinned."""


@dataclass(frozen=True)
class Freeze:
    """What a test does first so a volatile function's results repeat."""

    clocks: tuple[tuple[str, str], ...] = ()
    """(monkeypatch target, value source): ("time.time", "1_700_000_000.0")."""
    seed: bool = False
    unset: tuple[str, ...] = ()
    """Environment variables the test removes."""

    def lines(self) -> list[str]:
        found = [f'monkeypatch.delenv("{name}", raising=False)' for name in self.unset]
        names = ", ".join(f'"{name}"' for name in self.unset)
        loop = f"for name in ({names}):"
        if len(self.unset) > 2 and len(loop) <= MAX_LOOP_LINE:
            found = [loop, "    monkeypatch.delenv(name, raising=False)"]
        found += [
            f'monkeypatch.setattr("{where}", lambda: {value})' for where, value in self.clocks
        ]
        return found + ([f"random.seed({SEED})"] if self.seed else [])

    def spec(self) -> dict[str, object]:
        """For the probe script: what to patch before each call."""
        return {
            "clocks": [list(pair) for pair in self.clocks],
            "seed": SEED if self.seed else None,
            "unset": list(self.unset),
        }


def freeze_for(sources: frozenset[str]) -> Freeze | None:
    """The Freeze that pins these sources, or None when one of them cannot be pinned."""
    if not sources or OTHER in sources:
        return None
    clocks = sorted(source.split("=", 1) for source in sources if "=" in source)
    unset = sorted(source.removeprefix(ENV) for source in sources if source.startswith(ENV))
    pairs = tuple((where, value) for where, value in clocks)
    return Freeze(pairs, RANDOM in sources, tuple(unset))


def volatile_sources(tree: ast.Module, module: str) -> dict[str, frozenset[str]]:
    """Function, method and class names -> the volatile sources each reaches, directly
    or through other functions of the module (names reaching none are left out)."""
    imported = _imports(tree)
    nodes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    direct = {node.name: _sources(node, imported, module) for node in nodes}
    uses = {node.name: {_used_name(n) for n in ast.walk(node)} - {""} for node in nodes}
    found = {name: set(sources) for name, sources in direct.items()}
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            more = set().union(*(found.get(other, set()) for other in used)) - found[name]
            if more:
                found[name] |= more
                changed = True
    return {name: frozenset(sources) for name, sources in found.items() if sources}


def _imports(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Local name -> (volatile module, attribute or "" for the module itself)."""
    found: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in VOLATILE_MODULES:
                    found[alias.asname or root] = (root, "")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            root = node.module.split(".")[0]
            if root in VOLATILE_MODULES:
                for alias in node.names:
                    found[alias.asname or alias.name] = (root, alias.name)
    return found


def volatile_lines(tree: ast.Module, module: str) -> frozenset[int]:
    """The lines of the module's functions that read a volatile source: a call of a
    volatile function that ran none of them (`relative_time(d, other)`, which reads
    the clock only without `other`) gave a result that repeats."""
    imported = _imports(tree)
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            reads = _reads(node, imported, module)
            found |= {child.lineno for child, _, root in reads if root != "datetime"}
            for child in ast.walk(node):
                if isinstance(child, ast.expr) and _reads_clock_or_environment(child, imported):
                    found.add(child.lineno)
    return frozenset(found)


def _reads_clock_or_environment(node: ast.expr, imported: dict[str, tuple[str, str]]) -> bool:
    return _asks_today(node, imported) or _is_environ(node, imported) or _is_getenv(node, imported)


def _asks_today(node: ast.AST, imported: dict[str, tuple[str, str]]) -> bool:
    """`datetime.now`, `date.today`, `datetime.datetime.utcnow`: the current date asked
    for (datetime's other names read no clock)."""
    if not (isinstance(node, ast.Attribute) and node.attr in TODAY):
        return False
    base = node.value.value if isinstance(node.value, ast.Attribute) else node.value
    return isinstance(base, ast.Name) and imported.get(base.id, ("", ""))[0] == "datetime"


def _sources(node: ast.AST, imported: dict[str, tuple[str, str]], module: str) -> set[str]:
    found: set[str] = _environment(node, imported)
    return found | {source for _, source, _ in _reads(node, imported, module)}


def _reads(
    node: ast.AST, imported: dict[str, tuple[str, str]], module: str
) -> list[tuple[ast.expr, str, str]]:
    """Each read of a volatile module's name under `node`: (the node, its source
    marker, the module)."""
    today = any(isinstance(c, ast.Attribute) and c.attr in TODAY for c in ast.walk(node))
    found: list[tuple[ast.expr, str, str]] = []
    for child in ast.walk(node):
        source, root = "", ""
        if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
            origin = imported.get(child.value.id)
            if origin and not origin[1]:
                source = _source(origin[0], child.attr, f"{origin[0]}.{child.attr}", today)
                root = origin[0]
        elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            origin = imported.get(child.id)
            if origin and origin[1]:
                source = _source(origin[0], origin[1], f"{module}.{child.id}", today)
                root = origin[0]
        if source and isinstance(child, ast.expr):
            found.append((child, source, root))
    return found


def _source(module: str, name: str, target: str, today: bool) -> str:
    """The marker for `module.name`, reached as `target`: "target=value" for a clock.
    `datetime` counts only where the function asks for the current date or time."""
    if (module == "datetime" and not today) or module == "os":
        return ""  # os: only the environment counts, read by _environment
    if module == "time" and name in CLOCKS:
        return f"{target}={CLOCKS[name]}"
    if module == "time" and name in HARMLESS:
        return ""
    if module == "random" and name in SEEDED:
        return RANDOM
    return OTHER


def _environment(node: ast.AST, imported: dict[str, tuple[str, str]]) -> set[str]:
    """`env:NAME` for each variable read by a literal name; OTHER for any other use of
    os.environ or os.getenv (a computed name, the whole mapping)."""
    uses = [n for n in ast.walk(node) if _is_environ(n, imported) or _is_getenv(n, imported)]
    found: set[str] = set()
    explained: set[int] = set()
    for child in ast.walk(node):
        source, key = _environment_read(child, imported)
        if source is not None:
            explained.add(id(source))
            found.add(f"{ENV}{key}" if key else OTHER)
    return found | ({OTHER} if any(id(use) not in explained for use in uses) else set())


def _environment_read(
    node: ast.AST, imported: dict[str, tuple[str, str]]
) -> tuple[ast.expr | None, str]:
    """(the os.environ / getenv node read, the variable's literal name or "")."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        getter = isinstance(func, ast.Attribute) and func.attr == "get"
        if getter and isinstance(func, ast.Attribute) and _is_environ(func.value, imported):
            return func.value, _text(node.args[0])
        if _is_getenv(func, imported):
            return func, _text(node.args[0])
    if isinstance(node, ast.Subscript) and _is_environ(node.value, imported):
        return node.value, _text(node.slice)
    if isinstance(node, ast.Compare) and _is_membership(node, imported):
        return node.comparators[0], _text(node.left)
    return None, ""


def _is_membership(node: ast.Compare, imported: dict[str, tuple[str, str]]) -> bool:
    """`"NAME" in os.environ` (or `not in`)."""
    single = len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn)
    return single and _is_environ(node.comparators[0], imported)


def _is_environ(node: ast.AST, imported: dict[str, tuple[str, str]]) -> bool:
    return _is_os(node, imported, "environ")


def _is_getenv(node: ast.AST, imported: dict[str, tuple[str, str]]) -> bool:
    return _is_os(node, imported, "getenv")


def _is_os(node: ast.AST, imported: dict[str, tuple[str, str]], name: str) -> bool:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr == name and imported.get(node.value.id) == ("os", "")
    return isinstance(node, ast.Name) and imported.get(node.id) == ("os", name)


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value.isidentifier() else ""
    return ""


def _used_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in ("self", "cls") else ""
    return ""
