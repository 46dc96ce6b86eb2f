"""One object's views in one table: tests that build the same object the same way and
each check one plain view of it (a builtin of it, a public attribute, a method called
with the same literal arguments) against a literal or an object made from literals
(`Version(major=2, minor=0)`, `datetime.timedelta(0)`), become one table with the view
as a column:

    @pytest.mark.parametrize(
        ("view", "expected"),
        [
            (str, "/a/~0/~1/0"),
            (repr, "JsonPointer('/a/~0/~1/0')"),
            (JsonPointer.get_parts, ["a", "~", "/", "0"]),
        ],
    )
    def test_json_pointerread_views(view, expected):
        json_pointer = JsonPointer.from_parts(["a", "~", "/", 0])
        assert view(json_pointer) == expected

Methods that take the same arguments share them in the call (`view(zone, dt) ==
expected`, the `dt` written out), and the errors such views raise are one table too,
the method a column (and the error type and `match` when they differ):

    @pytest.mark.parametrize(
        ("method", "match"),
        [
            (Queue.peek, "peek on empty queue"),
            (Queue.pop, "pop on empty queue"),
        ],
    )
    def test_queue_raises(method, match):
        queue = Queue()
        with pytest.raises(IndexError, match=match):
            method(queue)

A row per former test, the same check. A method is called through its class; a table
that fails (the object's own class overrides it) is split back into its tests.
"""

from __future__ import annotations

from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.regroup import Pair
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.types import Target
from coder.builtin.gen.view_reading import ATTRIBUTE, MAX_ROWS, RAISES, Reading, View, read_views


def viewed(
    tests: list[Pair], targets: dict[str, Target], prefix: str, taken: set[str]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`tests` with each object's views in one table, and the tests each table replaces
    (`taken`: the names the file has besides these; `prefix`: how the tests spell the
    module's names, "" or `module.`). A views table among `tests` takes more rows."""
    groups: dict[tuple[str, str, str, str], list[tuple[Pair, View]]] = {}
    for pair in tests:
        target = targets.get(pair[0])
        reading = Reading(pair[1].names, target.owner if target else "", prefix)
        for view in read_views(pair[1].source, reading):
            groups.setdefault(view.key, []).append((pair, view))
    tables: dict[int, Pair] = {}
    replaced: dict[str, list[Pair]] = {}
    dropped: set[int] = set()
    names = taken | {test.name for _, test in tests}
    for members in groups.values():
        pairs = list({id(pair): pair for pair, _ in members}.values())
        if len(pairs) < 2 or len(members) > MAX_ROWS:
            continue
        if len({v.view for _, v in members}) < len(members):
            continue
        old = [test.name for _, test in pairs if test.source.startswith("@")]
        views = [view for _, view in members]
        table = _table(views, [test for _, test in pairs], names - set(old[:1]), old[:1])
        names.add(table.name)
        replaced[table.name] = pairs
        targets_named = ", ".join(dict.fromkeys(name for name, _ in pairs))
        tables[id(pairs[0])] = (targets_named, table)
        dropped |= {id(pair) for pair in pairs[1:]}
    out = [tables.get(id(pair), pair) for pair in tests if id(pair) not in dropped]
    return out, replaced


def _table(views: list[View], parts: list[Rendered], taken: set[str], keep: list[str]) -> Rendered:
    """The table of `views`, named as `keep` (a table it takes more rows into) or afresh."""
    first, stem = views[0], views[0].var.rstrip("_")  # `shlex_` (the class is `shlex`)
    kind = "raises" if first.check == RAISES else "views"
    name, number = (keep[0] if keep else f"test_{stem}_{kind}"), 2
    while name in taken:
        name, number = f"test_{stem}_{kind}_{number}", number + 1
    call = f"({first.var}{first.args})"
    if first.check == RAISES:
        columns, body = _raises_table(views, call)
    else:
        columns = [("view", [v.view for v in views]), ("expected", [v.expected for v in views])]
        body = [f"assert view{call} == expected"]
    source = parametrized(name, columns, [first.setup, *body])
    names = set().union(*(test.names for test in parts))
    modules = set().union(*(test.modules for test in parts))
    modules |= {"operator"} if any(v.view.startswith(ATTRIBUTE) for v in views) else set()
    results = frozenset().union(*(test.results for test in parts))
    return Rendered(name, source, names, True, modules, results)


def _raises_table(views: list[View], call: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The columns and the checks of a table of raises: the method, the error type when
    they differ, and the pattern when any pins one."""
    columns = [("method", [v.view for v in views])]
    error = views[0].error
    if len({v.error for v in views}) > 1:
        columns.append(("error", [v.error for v in views]))
        error = "error"
    match = ""
    if any(v.expected != "None" for v in views):
        columns.append(("match", [v.expected for v in views]))
        match = ", match=match"
    return columns, [f"with pytest.raises({error}{match}):", f"    method{call}"]
