"""The live function objects of the files a forked run changes, and the code to give them.

A helper module of coder_pytest_mutants (on the same path, imported by it). Functions are
found by their code (file, name, first line), so every decorator, method, property and
alias of one sees new code given to it. `mutated_code` makes one mutant's code;
`swapped_code` another version of whole files (HEAD's), function by function.
Standard library only.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import os
import sys
import types
from typing import Any


class Functions:
    """The live function objects of the mutated files, by (name, first line)."""

    def __init__(self, paths: set[str], load: bool = True) -> None:
        """`load`: import a file's module that is not imported yet (else it stays out)."""
        self.files = {os.path.realpath(path): path for path in paths}
        self.imported = {path: _import(path, load) for path in paths}
        self.by_code: dict[tuple[str, str, int], list[Any]] = {}
        self.caches: list[Any] = []
        where: dict[str, str | None] = {}  # co_filename -> mutated path: one realpath each
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename not in where:
                    where[code.co_filename] = self.files.get(os.path.realpath(code.co_filename))
                path = where[code.co_filename]
                if path is not None:
                    key = (path, code.co_name, code.co_firstlineno)
                    self.by_code.setdefault(key, []).append(obj)
            elif type(obj).__name__ == "_lru_cache_wrapper" and type(obj).__module__ == "functools":
                self.caches.append(obj)

    def mutated_code(self, mutant: dict[str, Any]) -> Any:
        """[(live functions, their mutated code)] for each function around the mutant
        that exists, or why the mutant cannot be placed."""
        path = mutant["path"]
        if self.imported[path]:
            return self.imported[path]
        levels = [
            (name, first, self.by_code.get((path, name, first), []))
            for name, first in mutant["function"]
        ]
        if not levels[0][2]:
            return f"no live function {levels[0][0]} (line {levels[0][1]})"
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
        digest = mutant.get("digest")
        if digest and hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
            return "its file is not the text the mutant was made from"
        text = text[: mutant["start"]] + mutant["replacement"] + text[mutant["end"] :]
        try:
            tree = compile(text, levels[0][2][0].__code__.co_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            return f"the mutant does not compile: {error}"
        swaps = []
        for name, first, functions in levels:
            code = _fitting(tree, name, first, functions)
            if code is None:
                return f"{name} (line {first}) differs in the mutant"
            swaps.append((functions, code))
        return swaps

    def swapped_code(self, files: list[dict[str, Any]]) -> Any:
        """[(live functions, their code in another version of the file)] for each
        function each file names (`functions`: name, first line today, first line in
        `text`), or why they cannot all be placed (then none is)."""
        swaps = []
        for file in files:
            path = file["path"]
            if self.imported.get(path):
                return self.imported[path]
            with open(path, encoding="utf-8", newline="") as handle:
                today = handle.read()
            if hashlib.sha256(today.encode("utf-8")).hexdigest() != file["digest"]:
                return f"{path} is not the text its swap was made for"
            live = [(n, f, o, self.by_code.get((path, n, f), [])) for n, f, o in file["functions"]]
            missing = next((f"{n} (line {f})" for n, f, _, found in live if not found), None)
            if missing or not live:
                return f"no live function {missing} in {path}"
            try:
                tree = compile(file["text"], live[0][3][0].__code__.co_filename, "exec")
            except (SyntaxError, ValueError) as error:
                return f"the other version of {path} does not compile: {error}"
            for name, first, other, functions in live:
                code = _fitting(tree, name, other, functions)
                if code is None:
                    return f"{name} (line {first}) of {path} cannot take the other code"
                swaps.append((functions, code))
        return swaps


def _fitting(tree: Any, name: str, first: int, functions: list[Any]) -> Any:
    """The code of `name` (first line `first`) in the compiled `tree`, if every live
    function can take it (as many free variables); else None."""
    code = _find(tree, name, first)
    if code is None or any(len(f.__code__.co_freevars) != len(code.co_freevars) for f in functions):
        return None
    return code


def _import(path: str, load: bool = True) -> str:
    """ "" once the module at `path` is imported (here, before any fork), else why not;
    `load`: import it if it is not yet."""
    real, name = os.path.realpath(path), os.path.basename(path)
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)  # a realpath only where the name matches
        if isinstance(file, str) and file.endswith(name) and os.path.realpath(file) == real:
            return ""
    if not load:
        return "the tests did not import it"
    for entry in sys.path:
        root = os.path.realpath(entry or ".")
        if real.startswith(root + os.sep):
            parts = os.path.relpath(real, root)[: -len(".py")].split(os.sep)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            try:
                importlib.import_module(name)
                return ""
            except Exception as error:  # noqa: BLE001 - any failure means: no fork here
                return f"{name} does not import here: {type(error).__name__}"
    return "not importable from sys.path"


def _find(code: Any, name: str, first: int) -> Any:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first:
                return const
            found = _find(const, name, first)
            if found is not None:
                return found
    return None
