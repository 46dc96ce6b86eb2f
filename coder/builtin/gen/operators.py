"""Special methods as a person calls them: `cart["abc"]`, `a == b`, `len(cart)`, not
`cart.__getitem__("abc")`."""

from __future__ import annotations

OPERATOR_FORMS = {
    "__getitem__": (1, "{obj}[{0}]"),
    "__contains__": (1, "{0} in {obj}"),
    "__len__": (0, "len({obj})"),
    "__iter__": (0, "list({obj})"),
    "__repr__": (0, "repr({obj})"),
    "__str__": (0, "str({obj})"),
    "__bool__": (0, "bool({obj})"),
    "__call__": (-1, "{obj}({args})"),
}
"""Special methods as a person calls them: `cart["abc"]`, not `cart.__getitem__("abc")`."""
STATEMENT_FORMS = {"__setitem__": (2, "{obj}[{0}] = {1}"), "__delitem__": (1, "del {obj}[{0}]")}
"""The same for statements (set-up only: a probe's call must be an expression)."""


def operator_form(owner: str, method: str, args: list[str]) -> str | None:
    """`owner.method(args)` spelled with the syntax that calls it, if it has one."""
    form = OPERATOR_FORMS.get(method) or STATEMENT_FORMS.get(method)
    if form is None or form[0] not in (-1, len(args)):
        return None
    return form[1].format(*args, obj=owner, args=", ".join(args))
