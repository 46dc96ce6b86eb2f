"""Classes that extend a builtin (`class SplayList(list)`) and document themselves in
their class docstring, as utility libraries write them.

End to end through the real Agent and LocalSandbox: the generated file is run by pytest;
then the pieces: constructor, observers, queries that change the object, abstract
methods, index names and slices.
"""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen import find_targets
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.objects import constructor
from coder.builtin.gen.observers import observers
from coder.builtin.gen.params import params_of
from coder.builtin.gen.usage import usage_hint
from coder.builtin.gen.values import guessed_values
from tests.helpers import generate, run_pytest_in

SEQUENCES = '''\
class MoveList(list):
    """A list whose items move to the front.

    >>> moves = Moves([5, 6, 7, 8])
    >>> moves.shift(2)
    >>> moves.front()
    7
    """

    def shift(self, item_index, dest_index=0):
        if item_index == dest_index:
            return
        item = self.pop(item_index)
        self.insert(dest_index, item)

    def swap(self, item_index, dest_index):
        if item_index < 0 or dest_index < 0:
            raise IndexError("counted from the front only")
        self[dest_index], self[item_index] = self[item_index], self[dest_index]

    def front(self):
        return self[0]


Moves = MoveList
'''


def test_a_list_subclass_is_built_from_a_list_and_shown_as_one(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"moves.py": SEQUENCES}, "moves")
    text = generated.text
    assert "MoveList([3, 1, 2])" in text, text  # not an empty MoveList() every call sees alike
    assert "list(move_list) == " in text, text  # its state after a call, as the builtin shows it
    assert "shift(" in text and "swap(" in text, text  # no method taken for abstract
    assert "moves = Moves([5, 6, 7, 8])" in text, text  # the class docstring's scenario
    assert run_pytest_in(generated.repo).returncode == 0


def test_the_class_docstring_shows_its_methods_under_their_earlier_lines() -> None:
    [target] = find_targets(SEQUENCES, ["MoveList.front"], "moves")
    scenario = next(p for p in target.probes if p.call.callee == "moves.front()")
    assert [c.callee for c in scenario.setup] == ["moves = Moves([5, 6, 7, 8])", "moves.shift(2)"]
    assert scenario.call.expected == "7"


def test_a_special_method_takes_no_scenario_from_the_class_docstring() -> None:
    source = SEQUENCES.replace(
        "def front(self):", "def __len__(self):\n        return 4\n\n    def front(self):"
    )
    [target] = find_targets(source, ["MoveList.__len__"], "moves")
    assert not [p for p in target.probes if p.call.origin == "doctest"]


def test_a_method_that_changes_the_object_is_no_observer() -> None:
    source = """\
class Bag:
    def __init__(self):
        self.items = [3, 1]
        self.seen = 0

    def sort(self):
        self.items.sort()

    def tally(self):
        self.seen += 1
        return self.seen

    def newest(self):
        return self.items[-1]
"""
    [cls] = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    # sort() gives nothing back; tally() changes what it shows; newest() only reads.
    assert observers(cls, "bag") == ["bag.items", "bag.seen", "bag.newest()"]


def test_a_dict_subclass_is_built_from_a_dict_and_a_module_base_still_counts() -> None:
    source = """\
class Base(dict):
    pass


class Counts(Base):
    def total(self):
        return sum(self.values())

    def bump(self, key):
        self[key] = self.get(key, 0) + 1
        return self.total()


class Shelf:
    def get(self, key, default):
        return default
"""
    targets = {t.name: t for t in find_targets(source, [], "counts")}
    # get() comes from dict, not from a subclass that would define it as Shelf does.
    assert not targets["Counts.bump"].skip
    setups = {probe.setup[0].source() for probe in targets["Counts.total"].probes}
    assert setups and all(setup.startswith("Counts({") for setup in setups), setups
    [cls] = [
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "Counts"
    ]
    assert observers(cls, "counts", ast.parse(source)) == ["counts.total()", "dict(counts)"]


def test_a_base_from_another_module_leaves_a_method_unjudged() -> None:
    source = """\
from collections import UserList


class Stack(UserList):
    def peek(self):
        return self.top()


class Other:
    def top(self):
        return 1
"""
    targets = {t.name: t for t in find_targets(source, [], "stack")}
    assert not targets["Stack.peek"].skip  # UserList may define top(): nothing is known


def test_an_index_named_parameter_is_tried_with_one_first() -> None:
    for name in ("index", "item_index", "idx", "list_idx", "offset", "position"):
        assert guessed_values(name)[0].source == "1", name
    assert guessed_values("count")[0].source == "3"  # a count is no index


def test_a_parameter_read_as_a_slice_gets_slices() -> None:
    node = ast.parse(
        "def __getitem__(self, index):\n"
        "    try:\n"
        "        start, stop = index.start, index.stop\n"
        "    except AttributeError:\n"
        "        return 0\n"
    ).body[0]
    assert isinstance(node, ast.FunctionDef)
    hint, origin = usage_hint(node, "index")
    assert hint is not None and ast.unparse(hint) == "slice" and origin == "guess"


def test_a_parameter_only_checked_against_none_is_tried_with_values_too() -> None:
    source = """\
class Window:
    def __init__(self):
        self.items = [4, 5, 6]

    def cut(self, first, last):
        if first is None:
            first = 0
        if last is None:
            last = len(self.items)
        return self.items[first:last]
"""
    node = next(n for n in ast.walk(ast.parse(source)) if getattr(n, "name", "") == "cut")
    assert isinstance(node, ast.FunctionDef)
    params = params_of(node, True, ModuleFacts.of(ast.parse(source)))
    assert [[v.source for v in p.values] for p in params] == [
        ["3", "None", "0", "-1", "1", "2", "10", "1000000"],  # `first = 0` says a number
        ["None", "3", '"abc"'],
    ]


def test_the_module_docstring_shows_a_method_too() -> None:
    source = '''\
"""Queues.

>>> line = Queue()
>>> line.put("first")
>>> line.put("second")
>>> line.get()
'first'
"""


class Queue:
    def __init__(self):
        self.items = []

    def put(self, item):
        self.items.append(item)

    def get(self):
        return self.items.pop(0)
'''
    [target] = find_targets(source, ["Queue.get"], "queues")
    # Named as the other tests name the instance, so they can share a table.
    scenario = next(p for p in target.probes if p.call.callee == "queue.get()")
    assert [c.callee for c in scenario.setup] == [
        "queue = Queue()",
        'queue.put("first")',
        'queue.put("second")',
    ]
    assert scenario.call.expected == "'first'"


def test_an_enum_or_a_class_with_its_own_new_is_not_built_as_its_builtin() -> None:
    source = """\
import enum


class Color(str, enum.Enum):
    RED = "red"

    def loud(self):
        return self.value.upper()


class Pair(tuple):
    def __new__(cls, a, b):
        return super().__new__(cls, (a, b))

    def total(self):
        return self[0] + self[1]
"""
    tree = ast.parse(source)
    facts = ModuleFacts.of(tree)
    color, pair = (n for n in tree.body if isinstance(n, ast.ClassDef))
    assert constructor(color, facts) == []  # no Color("abc"): its members are its values
    assert "str(color)" not in observers(color, "color", tree)
    made = constructor(pair, facts)  # what its __new__ takes: a and b, not one tuple
    assert made is not None and [param.name for param in made] == ["a", "b"]


ACCOUNT = """\
class Account:
    def __init__(self, balance: int) -> None:
        self._balance = balance

    @property
    def balance(self) -> int:
        return self._balance

    @balance.setter
    def balance(self, value: int) -> None:
        if value < 0:
            raise ValueError("negative balance")
        self._balance = value

    @property
    def owner(self) -> str:
        return "bank"

    @owner.deleter
    def owner(self) -> None:
        if self._balance > 0:
            raise AttributeError("the owner stays while money is in")
"""


def test_a_property_setter_is_called_by_assignment(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"account.py": ACCOUNT}, "account")
    text = generated.text
    assert "account.balance = " in text, text  # never account.balance(3)
    assert "account.balance(" not in text, text
    assert 'with pytest.raises(ValueError, match="negative balance"):' in text, text
    assert "del account.owner" in text, text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_read_only_property_is_pinned_as_its_guard_not_reported_as_a_bug(
    tmp_path: Path,
) -> None:
    source = """\
class Box:
    def __init__(self):
        self._size = 1

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        if self._size > 0:
            raise AttributeError("size is read-only")
"""
    generated = generate(tmp_path, {"box.py": source}, "box")
    # `value` is guessed (a float), but the error comes from the module's own `raise`.
    assert 'with pytest.raises(AttributeError, match="size is read-only"):' in generated.text
    assert "box.size = " in generated.text
    assert "POSSIBLE BUG" not in generated.summary
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_parameter_the_body_calls_is_a_callable_that_takes_the_other_branch() -> None:
    source = """\
def ranked(items, key=None):
    if key is None:
        return sorted(items)
    return sorted(items, key=lambda item: (key(item), item))
"""
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    hint, origin = usage_hint(node, "key")
    assert hint is not None and ast.unparse(hint) == "Callable" and origin == "guess"
    params = params_of(node, False, ModuleFacts.of(ast.parse(source)))
    assert "str" in [v.source for v in params[1].values]  # before: 3 and "abc"
