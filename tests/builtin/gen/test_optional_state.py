"""States a method without parameters reaches only through the constructor's optional
arguments: each given a value other than its default, together and alone; exception
classes built and their methods called like any other class's; and a default that is
all the generator knows of a parameter gets one value that takes the other branch.

End to end through the real Agent and LocalSandbox, then the pieces.
"""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen import find_targets
from tests.helpers import generate, param_values, run_pytest_in

ERRORS = '''\
from abc import ABC, abstractmethod


class ParseError(ValueError):
    """Raised when a line cannot be read."""

    def __init__(self, message, line=None, column=0):
        super().__init__(message)
        self.line = line
        self.column = column

    def __str__(self):
        if self.line is None:
            return self.args[0]
        if self.column:
            return f"{self.args[0]} (line {self.line}, column {self.column})"
        return f"{self.args[0]} (line {self.line})"


class Shape(ABC):
    @abstractmethod
    def area(self):
        raise NotImplementedError
'''


def test_an_exception_class_is_tested_in_each_state_its_options_make(tmp_path: Path) -> None:
    asked = ["ParseError.__init__", "ParseError.__str__", "Shape.area"]  # as coverage names
    generated = generate(tmp_path, {"errs.py": ERRORS}, "errs", asked)
    text = generated.text
    assert '"abc (line abc)"' in text, text  # a line given: the branch the default skips
    assert "line=None" not in text, text  # the default is never passed as itself
    # One table of the states, the object a column (its name is free again).
    assert '        (ParseError("abc", column=1), "abc"),\n' in text, text
    assert "def test_parse_error_str(parse_error, expected):" in text, text
    assert "Shape(" not in text, text  # an abstract base is not built
    assert run_pytest_in(generated.repo).returncode == 0


def test_each_optional_argument_makes_an_instance_alone_and_together() -> None:
    [target] = find_targets(ERRORS, ["ParseError.__str__"], "errs")
    setups = [probe.setup[0].source() for probe in target.probes]
    assert setups[:3] == [
        'ParseError("abc", line="abc")',
        'ParseError("abc", column=1)',
        'ParseError("abc", line="abc", column=1)',  # last: options may exclude each other
    ], setups


def test_a_default_alone_gets_a_value_that_takes_the_other_branch() -> None:
    source = """\
def show(value, width=0, tag="b", marker=None, count: int = 2):
    if width:
        value = value.rjust(width)
    if marker is not None:
        value = marker + value
    if not tag:
        return value * count
    return f"<{tag}>{value * count}"
"""
    found = param_values(source, "show")
    assert found["width"] == ["1"], found
    assert found["tag"] == ['""', '"abc"'], found
    assert found["marker"] == ["None", "3", '"abc"'], found  # nothing tells what it holds
    assert "0" not in found["count"][:1] and found["count"][0] == "3", found  # a hint says


def test_what_replaces_a_none_says_the_parameters_kind() -> None:
    source = """\
def configure(name, extra=None, items=None, sep=None, limit=None):
    if extra is None:
        extra = {}
    items = items or []
    sep = "," if sep is None else sep
    if not limit:
        limit = 10
    return name, extra, items, sep, limit
"""
    found = param_values(source, "configure")
    assert found["extra"][0].startswith("{") and "3" not in found["extra"], found
    assert found["items"][0].startswith("[") and '"abc"' not in found["items"], found
    assert found["sep"][0].startswith('"'), found
    assert found["limit"][0] == "3" and '"abc"' not in found["limit"], found


RANGES = """\
class Span:
    def __init__(self, low=None, high=None):
        if low is not None and high is not None:
            raise ValueError("give one bound, not both")
        self.low, self.high = low, high

    def __repr__(self):
        return f"Span({self.low!r}, {self.high!r})"

    def merge(self, other):
        if not isinstance(other, Span):
            raise TypeError("a Span merges with a Span")
        return Span(low=self.low if self.low is not None else other.low)
"""


def test_an_argument_that_fails_to_build_is_no_error_of_the_call(tmp_path: Path) -> None:
    # `span.merge(Span(low=3, high=3))` raised Span's own ValueError while building the
    # argument, and was pinned as merge's error before.
    [target] = find_targets(RANGES, ["Span.merge"], "spans")
    assert any("Span(low=" in p.call.source() and "high=" in p.call.source() for p in target.probes)
    generated = generate(tmp_path, {"spans.py": RANGES}, "spans", ["Span.merge"])
    assert "give one bound" not in generated.text, generated.text
    assert "span.merge(" in generated.text, generated.text
    assert run_pytest_in(generated.repo).returncode == 0


EXCLUDED = '''\
def excluding(items):
    """A set of everything but `items`."""
    if type(items) is _Excluded:
        return items
    return _Excluded(frozenset(items))


def _helper(x):
    return x


class _Excluded:
    def __init__(self, excluded=None):
        assert type(excluded) in (set, frozenset)
        self._excluded = excluded

    def __contains__(self, item):
        return item not in self._excluded

    def size(self):
        return -len(self._excluded)
'''


def test_a_private_class_a_public_function_returns_is_public_api() -> None:
    targets = find_targets(EXCLUDED, ["_helper", "_Excluded.size", "excluding"], "sets")
    assert [t.name for t in targets] == ["_Excluded.size", "excluding", "_helper"]
    size = targets[0]
    setups = [probe.setup[0].source() for probe in size.probes]
    assert setups[0] == "excluding([3, 1, 2])", setups  # built the module's way, plain values
    assert param_values(EXCLUDED, "excluding")["items"][0] == "[3, 1, 2]"  # iterated, before
    assert param_values(EXCLUDED, "__init__")["excluded"][0] == "{1, 2}"  # `type(x) in (set, ...)`


OPTIONS = '''\
class Queue:
    """A queue.

    Args:
        priority_key (callable): the priority of an item.
    """

    def __init__(self, **kw):
        self._key = kw.pop("priority_key", abs)
        self._limit = kw.pop("limit", 10)
        if kw:
            raise TypeError(f"unexpected keyword arguments: {sorted(kw)}")

    def rank(self, item):
        return min(self._key(item), self._limit)
'''


def test_keys_read_from_kwargs_are_keywords_a_call_passes(tmp_path: Path) -> None:
    [target] = find_targets(OPTIONS, ["Queue.__init__"], "queues")
    calls = [probe.call.source() for probe in target.probes]
    assert calls[:3] == ["Queue()", "Queue(priority_key=str)", "Queue(limit=3)"], calls
    assert "Queue(unknown_option=1)" in calls, calls  # what the body rejects
    asked = ["Queue.__init__", "Queue.rank"]
    generated = generate(tmp_path, {"queues.py": OPTIONS}, "queues", asked)
    assert "pytest.raises(TypeError" in generated.text and "unknown_option=1" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


GAPS = """\
class Slots:
    def __init__(self, items=()):
        self._items = list(items)
        self._holes = []

    def pop(self, index=None):
        index = len(self._items) - 1 if index is None else index
        self._holes.append(index)
        return self._items[index]

    def live(self):
        if self._holes:
            return [x for i, x in enumerate(self._items) if i not in self._holes]
        return list(self._items)
"""


def test_a_method_meets_the_richest_instance_after_a_removal_by_position() -> None:
    [target] = find_targets(GAPS, ["Slots.live"], "slots")
    setups = [tuple(call.source() for call in probe.setup) for probe in target.probes]
    assert ("Slots(items=[3, 1, 2])", "slots.pop(index=1)") in setups, setups


TAKEN_BACK = """\
class Tasks:
    def __init__(self):
        self._entries = []

    def add(self, task):
        self._entries.append([task, True])

    def remove(self, task):
        for entry in self._entries:
            if entry[0] == task:
                entry[1] = False

    def next_live(self):
        while self._entries:
            task, live = self._entries.pop(0)
            if not live:
                continue
            return task
        raise IndexError("no live task")
"""


def test_a_method_meets_an_entry_its_adder_added_and_its_remover_took_back() -> None:
    [target] = find_targets(TAKEN_BACK, ["Tasks.next_live"], "tasks")
    setups = [tuple(call.source() for call in probe.setup) for probe in target.probes]
    assert ("Tasks()", "tasks.add(3)", "tasks.remove(3)") in setups, setups


VERSIONS = '''\
class Version:
    """A release number.

    >>> Version(1, 2, 3).bumped()
    >>> Version(4, 5, 6).bumped()
    >>> Version(7, 8, 9).bumped()
    >>> versions.Version.parse("1.2.3").bumped()
    >>> versions.Version.parse("1.2.3-rc.1").bumped()
    """

    def __init__(self, major, minor=0, patch=0, pre=None):
        self.parts, self.pre = (major, minor, patch), pre

    @classmethod
    def parse(cls, text):
        head, _, pre = text.partition("-")
        return cls(*map(int, head.split(".")), pre=pre or None)

    def bumped(self):
        if self.pre is not None:
            return Version(*self.parts)
        return Version(self.parts[0], self.parts[1], self.parts[2] + 1)
'''


def test_the_objects_shown_in_other_states_come_before_the_same_state_again() -> None:
    [target] = find_targets(VERSIONS, ["Version.bumped"], "versions")
    setups = list(dict.fromkeys(probe.setup[0].source() for probe in target.probes))
    # The typical one (the docstring's first), then one of each other form it shows
    # (spelled from the module there): the prerelease state is not crowded out.
    assert setups[:3] == [
        "Version(1, 2, 3)",
        'Version.parse("1.2.3")',
        'Version.parse("1.2.3-rc.1")',
    ], setups


REGISTRY = '''\
class Registry:
    """Names in the order they were last added."""

    def __init__(self):
        self._order = []
        self._seen = {}

    def __len__(self):
        return len(self._order)

    def add(self, name: str) -> None:
        if name in self._seen:
            self._order.remove(name)
        self._seen[name] = True
        self._order.append(name)
'''


def test_an_adder_meets_the_entry_it_added_before(tmp_path: Path) -> None:
    """The adder's branch for a name already there runs only when the same name is
    added twice: its test adds it twice and asserts the state, though `len` did not
    change (one entry, not two, is what it checks)."""
    [target] = find_targets(REGISTRY, ["Registry.add"], "registry")
    setups = [tuple(call.source() for call in probe.setup) for probe in target.probes]
    assert ("Registry()", 'registry.add("abc")') in setups, setups
    generated = generate(tmp_path, {"registry.py": REGISTRY}, "registry", ["Registry.add"])
    assert 'registry.add("abc")\n    registry.add("abc")\n    assert len(registry) == 1' in (
        generated.text
    ), generated.text
    assert run_pytest_in(generated.repo).returncode == 0


LAZY = '''\
class Report:
    """A total worked out when first asked for, then kept."""

    def __init__(self, amounts: list[int]):
        self.amounts = amounts
        self._total = None
        self.computed = 0

    def total(self) -> int:
        if self._total is None:
            self.computed += 1
            self._total = sum(self.amounts)
        return self._total

    def reset(self) -> None:
        self._total = None


class Profile:
    def __init__(self, name: str):
        self.name = name
        self._slug = None

    @property
    def slug(self) -> str:
        if self._slug is None:
            self._slug = self.name.lower().replace(" ", "-")
        return self._slug
'''


def test_a_method_keeping_what_it_found_is_called_twice(tmp_path: Path) -> None:
    """`if self._total is None:` is false only on the second call on the same instance:
    the test calls it once first, and the kept branch is then run and checked. A
    method that stores state without testing it (`reset`) gets no such set-up."""
    total, reset = find_targets(LAZY, ["Report.total", "Report.reset"], "report")
    setups = [tuple(call.source() for call in probe.setup) for probe in total.probes]
    assert ("Report([3, 1, 2])", "report.total()") in setups, setups
    assert all(len(probe.setup) == 1 for probe in reset.probes), reset.probes
    generated = generate(tmp_path, {"report.py": LAZY}, "report", ["Report.total"])
    assert "report.total()\n    assert report.total() == 6" in generated.text, generated.text
    assert "report.computed == 1" in generated.text, generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_property_keeping_what_it_found_is_read_twice(tmp_path: Path) -> None:
    """A lazy property is read once first; its value is asserted once, not again
    among the object's other attributes."""
    [slug] = find_targets(LAZY, ["Profile.slug"], "report")
    setups = [tuple(call.source() for call in probe.setup) for probe in slug.probes]
    assert ('Profile("abc")', "profile.slug") in setups, setups
    generated = generate(tmp_path, {"report.py": LAZY}, "report", ["Profile.slug"])
    assert "profile.slug\n    assert profile.slug == " in generated.text, generated.text
    assert generated.text.count("assert profile.slug ==") == 1, generated.text
    assert run_pytest_in(generated.repo).returncode == 0
