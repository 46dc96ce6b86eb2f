"""Where did a name a test imports go? Moved (same name, one other module) or renamed
(the source's history shows the one name added in its place; else the repository says so
in a docstring or comment; else the one close name nearby)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from coder.builtin.repair.history import replaced
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.syntax import parse

CLOSE_RATIO = 0.6
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Found:
    module: str
    name: str
    how: str
    """How it was found, for the edit's reason."""


def resolve(index: ModuleIndex, old_module: str, name: str, taken: set[str]) -> Found | str:
    """Where `old_module.name` is now, or why that cannot be told."""
    elsewhere = [m for m in index.definitions(name) if m != old_module]
    hinted = _hints(index, old_module, name)
    if len(elsewhere) == 1:
        return Found(elsewhere[0], name, f"moved to {elsewhere[0]}")
    if elsewhere:
        named = [found for found in hinted if found.name == name and found.module in elsewhere]
        if len(named) == 1:
            return named[0]
        return f"`{name}` is defined in several modules ({', '.join(elsewhere)})"
    if name in index.names(old_module):
        return f"`{name}` is still defined in {old_module}: the import fails for another reason"
    history = _from_history(index, old_module, name, taken)
    history = history if history is not None else _renamed_below(index, old_module, name, taken)
    if history is not None:
        return history
    hinted = [found for found in hinted if found.name not in taken]
    if len(hinted) == 1:
        return hinted[0]
    return _renamed(index, old_module, name, taken)


def _from_history(
    index: ModuleIndex, module: str, name: str, taken: set[str]
) -> Found | str | None:
    """The one name `module` gained since the last commit in place of `name`, or why the
    history cannot say; None when there is no history of it."""
    before = index.names_before(module)
    if before is None:
        return None
    now = sorted(index.names(module))
    found = replaced(sorted(before), now, name, lambda n: _plausible(name, n) and n not in taken)
    if found is None:
        return None
    if found.new is None:
        return found.describe(f"`{name}`", module)
    how = f"renamed to {found.new}: {module} had {name} at the last commit, and {found.new} since"
    return Found(module, found.new, how)


def _renamed_below(index: ModuleIndex, package: str, name: str, taken: set[str]) -> Found | None:
    """A package re-exporting `name` from a submodule where it was renamed: the one
    submodule whose history lost `name` and gained one plausible name in its place. The
    new name is spelled from the package when the package re-exports it too."""
    answers: set[tuple[str, str]] = set()
    for module in index.family(package):
        before = index.names_before(module) if module != package else None
        fits = lambda n: _plausible(name, n) and n not in taken  # noqa: E731
        found = replaced(sorted(before or ()), sorted(index.names(module)), name, fits)
        if found is not None and found.new is not None:
            answers.add((module, found.new))
    if len(answers) != 1:
        return None
    module, new = answers.pop()
    home = package if _reexports(index.source(package), new) else module
    how = f"renamed to {new}: {module} had {name} at the last commit, and {new} since"
    return Found(home, new, how)


def _reexports(text: str, name: str) -> bool:
    """The package's own top level imports `name` (`from .sub import x as name`)."""
    tree = parse(text)
    return tree is not None and any(
        (alias.asname or alias.name) == name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    )


CLEAR_MARGIN = 0.15
"""How much closer the best of several candidate names must be to be taken."""


def _renamed(index: ModuleIndex, old_module: str, name: str, taken: set[str]) -> Found | str:
    candidates = [
        (module, other)
        for module in index.family(old_module)
        for other in sorted(index.names(module))
        if _plausible(name, other) and other not in taken
    ]
    for rule, picked in (
        ("a close name", [c for c in candidates if close(name, c[1])]),
        ("a name sharing a word", [c for c in candidates if _shares_word(name, c[1])]),
    ):
        if len(picked) == 1:
            module, other = picked[0]
            return Found(module, other, f"renamed to {other} ({rule}, the only one in {module})")
        clear = _clear_winner(name, picked)
        if clear is not None:
            module, other = clear
            return Found(module, other, f"renamed to {other} (far closer than the others)")
        if picked:
            shown = ", ".join(f"{m}.{n}" for m, n in picked)
            return f"`{name}` is gone and {len(picked)} names could replace it ({shown})"
    return f"`{name}` is no longer defined anywhere in the repository, nor renamed plausibly"


def _clear_winner(name: str, picked: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The candidate whose name is much closer than every other's, if there is one."""
    if len(picked) < 2:
        return None
    ranked = sorted(picked, key=lambda c: _ratio(name, c[1]), reverse=True)
    best, second = _ratio(name, ranked[0][1]), _ratio(name, ranked[1][1])
    return ranked[0] if best - second >= CLEAR_MARGIN else None


def _ratio(old: str, new: str) -> float:
    return SequenceMatcher(None, old.lower(), new.lower()).ratio()


def close(old: str, new: str) -> bool:
    return SequenceMatcher(None, old.lower(), new.lower()).ratio() >= CLOSE_RATIO


def _plausible(old: str, new: str) -> bool:
    """A public name of the same kind (CONSTANT, Class or function/variable)."""
    return new != old and not new.startswith("_") and _kind(new) == _kind(old)


def _kind(name: str) -> str:
    letters = name.strip("_")
    if letters.isupper():
        return "constant"
    return "class" if letters[:1].isupper() else "other"


def _words(name: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {word.lower() for word in spaced.split("_") if len(word) >= 3}


def _shares_word(old: str, new: str) -> bool:
    """slugify / make_slug: a word of one name is part of the other."""
    lower_old, lower_new = old.lower(), new.lower()
    return any(w in lower_old for w in _words(new)) or any(w in lower_new for w in _words(old))


def _hints(index: ModuleIndex, old_module: str, name: str) -> list[Found]:
    """Definitions the repository's own text names next to the lost name, as in
    "DEFAULT_TAX_RATE was removed; use shop.rates.VAT_RATE" or a docstring saying
    "(renamed from `slugify` in 1.4)"."""
    mention = re.compile(rf"\b{re.escape(name)}\b")
    found: dict[tuple[str, str], str] = {}
    for module in index.modules:
        text = index.source(module)
        if not mention.search(text):
            continue
        named = _documented(text, mention, module)
        for line in text.splitlines():
            named |= _referenced(index, module, line) if mention.search(line) else set()
        found.update({place: module for place in sorted(named) if place not in found})
    found.pop((old_module, name), None)
    return [
        Found(m, n, f"{'moved to ' + m if n == name else 'renamed to ' + n}, as {said} says")
        for (m, n), said in sorted(found.items())
        if n == name or _plausible(name, n)
    ]


def _referenced(index: ModuleIndex, module: str, line: str) -> set[tuple[str, str]]:
    found = set()
    for token in _DOTTED.findall(line):
        prefix, _, last = token.rpartition(".")
        if prefix and last in index.names(prefix):
            found.add((prefix, last))
        elif not prefix and token in index.names(module):
            found.add((module, token))
        if index.has(token):
            found |= {(token, other) for other in index.names(token) if "." in token}
    return found


def _documented(text: str, mention: re.Pattern[str], module: str) -> set[tuple[str, str]]:
    tree = parse(text)
    if tree is None:
        return set()
    defs = (
        n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )
    return {(module, d.name) for d in defs if mention.search(ast.get_docstring(d) or "")}
