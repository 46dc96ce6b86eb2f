"""Facts about a whole module: its literal constants and the names it defines."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from coder.builtin.gen.flows import Shown, by_name, shown_values
from coder.builtin.gen.origins import Origins, imported_names
from coder.builtin.literals import is_parsed, node_value


def module_constants(tree: ast.Module) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node_value(node.value)
            if isinstance(target, ast.Name) and is_parsed(value):
                found[target.id] = value
    return found


@dataclass(frozen=True)
class ModuleFacts:
    """What every target of one module may need to know about it."""

    constants: dict[str, object] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    """The names the module binds at its top level (functions, classes, imports...)."""
    tree: ast.Module = field(default_factory=lambda: ast.Module([], []))
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    """Type aliases (`SetLike = Union[AbstractSet[T], Sequence[T]]`)."""
    shown: Shown = field(default_factory=Shown)
    """What the module's examples pass its functions (flows.py)."""
    named: dict[str, list[str]] = field(default_factory=dict)
    """Parameter name -> the values shown for a parameter of that name anywhere."""
    origins: Origins = field(default_factory=dict)
    """The names it imports from other modules (origins.py)."""
    memo: dict[object, tuple[object, object]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Results worked out once per module (params.py: a function's parameters), each
    kept with the node it is about, so a key naming a node by id cannot outlive it."""

    @classmethod
    def of(cls, tree: ast.Module) -> ModuleFacts:
        shown, names = shown_values(tree), top_level_names(tree)
        named = by_name(shown.values)
        aliases, origins = type_aliases(tree), imported_names(tree)
        return cls(module_constants(tree), names, tree, aliases, shown, named, origins)

    def shown_for(self, node: ast.FunctionDef, param: str, kind: str = "") -> list[str]:
        """The values the module shows for `param` of `node`, else for its name: of the
        `kind` the parameter is used as, when known ("str": `TokenStream(argv)` names a
        list `source`, which says nothing of `parse_pattern(source)`'s text), and only a
        name longer than a letter (`a` of one function says nothing of another's `a`)."""
        own = self.shown.values.get((node.lineno, param))
        if own:
            return own
        wanted = _KINDS.get(kind)
        named = self.named.get(param, []) if len(param) > 1 else []
        return [v for v in named if wanted is None or _literal_of(v, wanted)]


_KINDS: dict[str, type] = {"str": str, "int": int, "float": float, "list": list, "dict": dict}


def _literal_of(source: str, kind: type) -> bool:
    value = node_value(ast.parse(source, mode="eval").body)
    return isinstance(value, kind) and not isinstance(value, bool)


def top_level_names(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        else:
            found |= {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return found


_TYPING = {"Union", "Optional", "List", "Dict", "Set", "Tuple", "Sequence", "Iterable", "Mapping"}
_TYPING |= {"AbstractSet", "Callable", "Literal", "list", "dict", "set", "tuple", "frozenset"}


def type_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """`Name = Union[...]`-style assignments at the module's top level (and `TypeAlias`)."""
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        subscript = isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
        if isinstance(target, ast.Name) and subscript and value.value.id in _TYPING:  # type: ignore[attr-defined]
            found[target.id] = value
    return found
