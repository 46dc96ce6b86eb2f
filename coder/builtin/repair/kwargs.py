"""Repair a keyword argument the called function renamed.

    TypeError: build_request() got an unexpected keyword argument 'timeout'
    build_request(url, timeout=2.5)  ->  build_request(url, timeout_s=2.5)

The new name is the one parameter the source's history shows added in place of the old
one (the signature at the last commit against the signature now); without history, the
one parameter of the current signature, not already passed in the call, that is the only
one containing the old name (or contained in it), or else clearly the closest to it
(difflib ratio >= 0.6).
"""

from __future__ import annotations

import ast
import functools
import re
from difflib import SequenceMatcher

from coder.builtin.plan import FailureLike, Plan, as_outcome, failing_line, refuse
from coder.builtin.repair.history import Before, Replaced, replaced
from coder.builtin.repair.renames import CLOSE_RATIO
from coder.builtin.source import Replacement, SourceText, make_edits
from coder.builtin.syntax import called_name, contains, parse, walked
from tools import TestOutcome

_UNEXPECTED = re.compile(r"([\w.<>]+)\(\) got an unexpected keyword argument '(\w+)'")
_CLEAR_LEAD = 0.1
"""How much closer the best parameter must be than the next (timeout_s vs timeout_ms)."""
Definitions = dict[str, list[tuple[str, str]]]


def plan_kwarg(
    failure: FailureLike,
    test_source: str,
    path: str,
    definitions: Definitions,
    before: Before | None = None,
) -> Plan:
    """Edits renaming the stale keyword in every call of the function in the test file
    (`path`: the file holding the call, a test module or a helper it calls)."""
    outcome = as_outcome(failure)
    where = f"{path}:{failing_line(outcome) or 0}"
    found = _UNEXPECTED.search(outcome.message)
    tree = parse(test_source)
    if found is None or tree is None:
        return refuse(where, "not a TypeError about an unexpected keyword argument")
    qualified, old = found.groups()
    callee, signatures = _signatures(qualified, definitions, old)
    if not signatures:
        return refuse(where, f"cannot find the current definition of {qualified}()")
    nodes = walked(test_source)
    calls = _calls(nodes, _callee_names(nodes, callee), old)
    failing = [call for call in calls if any(contains(call, n) for n in _lines(outcome, path))]
    if not failing:
        return refuse(where, f"no call passing {old}= to {callee}() on the failing lines")
    history = _from_history(qualified, definitions, old, failing[0], before)
    if history is not None and history.new is None:
        return refuse(where, history.describe(f"{old}=", f"{qualified}()"))
    choices = {_choose(params, _passed(failing[0], params), old) for params in signatures}
    new = history.new if history else (choices.pop() if len(choices) == 1 else None)
    if new is None:
        return refuse(where, f"no single parameter of {qualified}() clearly replaces {old}=")
    source = SourceText(test_source)
    replacements = []
    for call in calls:
        if any(new in _passed(call, params) for params in signatures):
            return refuse(f"{path}:{call.lineno}", f"that call already passes {new}=")
        how = HISTORY_SAYS if history else "renamed"
        replacements.append(_rename_keyword(source, path, call, (old, new), qualified, how))
    return make_edits(path, source, replacements)


def _lines(outcome: TestOutcome, path: str) -> set[int]:
    """Lines of the test file where the failure passed through."""
    files = {path, outcome.file}
    lines = {frame.line for frame in outcome.traceback if frame.file in files and frame.line}
    return lines | ({outcome.crash_line} if outcome.crash_line else set())


def _rename_keyword(
    source: SourceText,
    path: str,
    call: ast.Call,
    renamed: tuple[str, str],
    qualified: str,
    how: str,
) -> Replacement:
    old, new = renamed
    keyword = next(kw for kw in call.keywords if kw.arg == old)
    start = source.offset(keyword.lineno, keyword.col_offset)
    reason = f"{path}:{keyword.lineno} {qualified}(): keyword {old}= -> {new}= ({how})"
    return Replacement(start, start + len(old), new, reason)


HISTORY_SAYS = "renamed: the last commit's signature had it, the one added since replaces it"


def _from_history(
    qualified: str, definitions: Definitions, old: str, call: ast.Call, before: Before | None
) -> Replaced | None:
    """What the definition's history says replaced `old`, when every file defining the
    callable once, then and now, agrees; None when history cannot tell."""
    answers: set[Replaced] = set()
    for path, text in (entry for entries in definitions.values() for entry in entries):
        earlier = before(path, text) if before is not None else None
        then = _signatures(qualified, {"": [(path, earlier)]}, "")[1] if earlier else []
        now = _signatures(qualified, {"": [(path, text)]}, "")[1]
        if len(then) == len(now) == 1:
            free = [name for name in now[0] if name not in _passed(call, now[0])]
            found = replaced(then[0], now[0], old, free.__contains__)
            answers |= {found} if found is not None else set()
    return answers.pop() if len(answers) == 1 else None


def _choose(params: list[str], passed: set[str], old: str) -> str | None:
    free = [p for p in params if p not in passed]
    # One parameter whose name holds the old one, or is held by it (force_color -> force),
    # is stronger evidence than spelling distance (which would say no_color).
    containing = [p for p in free if len(p) >= 3 and (old in p or p in old)]
    if len(containing) == 1:
        return containing[0]
    scored = sorted(((SequenceMatcher(None, old, p).ratio(), p) for p in free), reverse=True)
    close = [(score, p) for score, p in scored if score >= CLOSE_RATIO]
    if close and (len(close) == 1 or close[0][0] - close[1][0] >= _CLEAR_LEAD):
        return close[0][1]
    return None


def _passed(call: ast.Call, params: list[str]) -> set[str]:
    positional = params[: len(call.args)]
    return {kw.arg for kw in call.keywords if kw.arg} | set(positional)


def _calls(nodes: tuple[ast.AST, ...], names: set[str], old: str) -> list[ast.Call]:
    return [
        node
        for node in nodes
        if isinstance(node, ast.Call) and called_name(node) in names
        and any(kw.arg == old for kw in node.keywords)
    ]  # fmt: skip


def _callee_names(nodes: tuple[ast.AST, ...], callee: str) -> set[str]:
    """`callee` and the aliases the test imports it under."""
    names = {callee}
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            names |= {a.asname for a in node.names if a.name == callee and a.asname}
    return names


def _signatures(qualified: str, definitions: Definitions, old: str) -> tuple[str, list[list[str]]]:
    """The name the test calls, and the keyword parameters of each current definition."""
    parts = qualified.split(".")
    is_init = parts[-1] == "__init__" and len(parts) > 1
    callee = parts[-2] if is_init else parts[-1]
    found: list[list[str]] = []
    for _, text in (entry for entries in definitions.values() for entry in entries):
        found += [list(params) for params in _params_in(text, callee, is_init)]
    unique = [params for i, params in enumerate(found) if params not in found[:i]]
    return callee, [params for params in unique if old not in params]


@functools.lru_cache(maxsize=256)
def _params_in(text: str, callee: str, is_init: bool) -> tuple[tuple[str, ...], ...]:
    """The keyword parameters of each definition of `callee` in the module `text`
    (its `__init__` when `is_init`); cached, since every failure asks again."""
    tree = parse(text)
    if tree is None:
        return ()
    found = _class_params(tree, callee) if is_init else _function_params(tree, callee)
    return tuple(tuple(params) for params in found)


def _function_params(tree: ast.Module, name: str) -> list[list[str]]:
    methods = {
        id(item) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
        for item in node.body
    }  # fmt: skip
    return [
        _params(node, drop_first=id(node) in methods and not _is_static(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        and node.args.kwarg is None
    ]  # fmt: skip


def _class_params(tree: ast.Module, name: str) -> list[list[str]]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name == name):
            continue
        inits = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
        if inits and inits[0].args.kwarg is None:
            found.append(_params(inits[0], drop_first=True))
        elif not inits and _is_dataclass(node):
            fields = [n.target for n in node.body if isinstance(n, ast.AnnAssign)]
            found.append([f.id for f in fields if isinstance(f, ast.Name)])
    return found


def _params(func: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> list[str]:
    names = [arg.arg for arg in func.args.posonlyargs + func.args.args]
    positional_only = len(func.args.posonlyargs)
    keyword_names = names[positional_only:] if not drop_first or positional_only else names[1:]
    return keyword_names + [arg.arg for arg in func.args.kwonlyargs]


def _is_static(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(getattr(d, "id", "") == "staticmethod" for d in func.decorator_list)


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if getattr(target, "id", getattr(target, "attr", "")) == "dataclass":
            return True
    return False
