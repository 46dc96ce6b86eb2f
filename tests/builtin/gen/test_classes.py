"""The builtin generator on classes as real libraries write them: a base class in the
same module, special methods, `obj[key] = value` to fill an instance, acronym names.

End to end through the real Agent and LocalSandbox (as tests/builtin/gen/test_generator.py):
names, order and imports as the generated file shows them; then the pieces: what a
subclass inherits, and where tests go.
"""

from __future__ import annotations

import time
from pathlib import Path

from coder.builtin.gen import find_targets
from coder.workflows.gen import (
    scope as gen_scope,  # its test_file_for must not be collected
)
from tests.helpers import function_source, generate, run_pytest_in

STORE = """\
class Store:
    def __init__(self, capacity):
        self._data = {}
        self.capacity = capacity

    def __len__(self):
        return len(self._data)

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        if len(self._data) >= self.capacity:
            raise OverflowError("full")
        self._data[key] = value

    def __contains__(self, key):
        return key in self._data

    def __copy__(self):
        return Store(self.capacity)


class LRUStore(Store):
    def oldest(self):
        return next(iter(self._data))
"""
TARGETS = [
    "LRUStore.oldest",
    "Store.__getitem__",
    "Store.__contains__",
    "Store.__setitem__",
    "Store.__copy__",
]


def test_special_methods_are_called_by_their_syntax(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"store.py": STORE}, "store", TARGETS)
    # The subclass gets the base's constructor (a capacity guessed from its name), filled
    # by the base's `store[key] = value`.
    assert function_source(generated.text, "test_lru_store_oldest_after_setting_an_item") == (
        "def test_lru_store_oldest_after_setting_an_item():\n"
        "    lru_store = LRUStore(3)\n"
        '    lru_store["abc"] = 2.5\n'
        '    assert lru_store.oldest() == "abc"'
    )
    assert function_source(
        generated.text, "test_store_getitem_after_setting_an_item_with_key_abc"
    ) == (
        "def test_store_getitem_after_setting_an_item_with_key_abc():\n"
        "    store = Store(3)\n"
        '    store["abc"] = 2.5\n'
        '    assert store["abc"] == pytest.approx(2.5)'
    )
    assert '    assert ("abc" in store) is True' in generated.text
    # Setting an item is what the tests above set up: it needs no test of its own.
    assert "- Store.__setitem__: skipped (the other tests notice all it does)" in (
        generated.summary
    )
    assert "__getitem__" not in generated.text and "__setitem__" not in generated.text
    # copy.copy(store) makes a Store whose repr shows only its address: nothing to assert.
    assert "- Store.__copy__: skipped (no deterministic result worth asserting)" in (
        generated.summary
    )
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


def test_inherited_methods_serve_the_subclass_but_are_not_targets_twice() -> None:
    targets = {t.name: t for t in find_targets(STORE, [], "store")}
    assert "LRUStore.__init__" not in targets and "LRUStore.oldest" in targets
    assert "len(lru_store)" in targets["LRUStore.oldest"].observers


QUEUES = """\
import heapq


class BaseQueue:
    def __init__(self):
        self._backend = []

    @staticmethod
    def _push(backend, item):
        pass  # each subclass says how

    @staticmethod
    def _pop(backend):
        return None

    def put(self, item: int) -> None:
        self._push(self._backend, item)

    def take(self):
        return self._next()

    def _next(self):
        if not self._backend:
            raise IndexError("empty queue")
        return self._pop(self._backend)


class HeapQueue(BaseQueue):
    @staticmethod
    def _push(backend, item):
        heapq.heappush(backend, item)

    @staticmethod
    def _pop(backend):
        return heapq.heappop(backend)
"""


def test_methods_that_reach_a_subclass_hook_are_tested_on_the_subclass(tmp_path: Path) -> None:
    # Before, only BaseQueue's methods were targets, and the hooks were called on their
    # own with whatever came to hand (`HeapQueue._pop(BaseQueue())`).
    names = [t.name for t in find_targets(QUEUES, [], "queues")]
    assert "HeapQueue.put" in names and "HeapQueue.take" in names  # take reaches _pop via _next
    asked = [t.name for t in find_targets(QUEUES, ["HeapQueue._pop"], "queues")]
    assert asked[:1] == ["HeapQueue.take"] and "HeapQueue._pop" in asked
    generated = generate(tmp_path, {"queues.py": QUEUES}, "queues")
    assert "heap_queue = HeapQueue()" in generated.text
    assert "_pop(" not in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


FIGURES = """\
class Figure:
    def describe(self) -> str:
        return f"{self.name()} of area {self.area()}"


class Square(Figure):
    def __init__(self, side: int = 2) -> None:
        self.side = side

    def name(self) -> str:
        return "square"

    def area(self) -> int:
        return self.side**2
"""


def test_a_method_that_calls_what_only_subclasses_define_is_tested_on_them(
    tmp_path: Path,
) -> None:
    # Before: `Figure().describe()` raised AttributeError, reported as a possible bug.
    targets = {t.name: t for t in find_targets(FIGURES, [], "figures")}
    assert "subclasses define" in targets["Figure.describe"].skip
    assert not targets["Square.describe"].skip
    generated = generate(tmp_path, {"figures.py": FIGURES}, "figures")
    assert "possible bug" not in generated.text and "Figure()" not in generated.text
    assert '(Square.describe, "square of area 9"),' in generated.text  # its views' table
    assert run_pytest_in(generated.repo).returncode == 0


SHAPES = """\
class FIFOCache:
    def __init__(self) -> None:
        self.items: list[int] = []

    def addItem(self, item: int) -> None:
        self.items.append(item)


class HTTPServer:
    def __init__(self, port: int = 80) -> None:
        self.port = port

    def url(self) -> str:
        return f"http://localhost:{self.port}"
"""


def test_names_in_tests_split_acronyms(tmp_path: Path) -> None:
    # (A special method loses its underscores: test_store_getitem_... above.)
    generated = generate(tmp_path, {"shapes.py": SHAPES}, "shapes")
    assert function_source(generated.text, "test_fifo_cache_add_item_with_item_3") == (
        "def test_fifo_cache_add_item_with_item_3():\n"
        "    fifo_cache = FIFOCache()\n"
        "    fifo_cache.addItem(3)\n"
        "    assert fifo_cache.items == [3]"
    )
    assert function_source(generated.text, "test_http_server_url") == (
        "def test_http_server_url():\n"
        "    http_server = HTTPServer(port=3)\n"
        '    assert http_server.url() == "http://localhost:3"'
    )


def test_a_packages_tests_go_where_its_classes_are_used() -> None:
    files = {
        "pkg/__init__.py": b"class Cache: ...\nclass Store: ...\n",
        "tests/test_cache.py": b"import pkg\n\n\ndef test_cache():\n    pkg.Cache()\n",
        "tests/test_store.py": b"from pkg import Store\n\n\ndef test_store():\n    Store()\n",
    }
    assert gen_scope.test_file_for("pkg/__init__.py", "pkg", files, {"Store"}) == (
        "tests/test_store.py",
        True,
    )
    assert gen_scope.test_file_for("pkg/__init__.py", "pkg", files, {"Other"}) == (
        "tests/test_pkg.py",
        False,
    )


ROLL = """\
import random


def roll(sides: int = 6) -> int:
    if sides < 1:
        raise ValueError("no sides")
    return random.randint(0, sides)
"""


def test_new_imports_take_their_isort_places(tmp_path: Path) -> None:
    existing = (
        "import unittest\nfrom pathlib import Path\n\nimport calc\n\n\ndef test_a():\n"
        "    assert 1\n"
    )
    files = {"calc.py": ROLL, "tests/test_calc.py": existing}
    generated = generate(tmp_path, files, "calc")
    assert generated.text.startswith(
        "import random\nimport unittest\nfrom pathlib import Path\n\nimport pytest\n\nimport calc\n"
    )
    assert (
        '    random.seed(1234)\n    with pytest.raises(ValueError, match="no sides"):\n'
        in generated.text
    )


def _target_lines(summary: str) -> list[str]:
    """The summary's "- target: tests" lines, in the order the targets were probed."""
    return [line for line in summary.splitlines() if line.startswith("- ")]


def test_public_functions_are_probed_before_private_helpers(tmp_path: Path) -> None:
    """Without a time budget 25 targets are probed, then the next 25: the rest is left."""
    source = "".join(f"def _helper{n}(x: int) -> int:\n    return x\n\n\n" for n in range(52))
    source += "def api(x: int) -> int:\n    return _helper0(x)\n"
    names = [f"_helper{n}" for n in range(52)] + ["api"]
    generated = generate(tmp_path, {"m.py": source}, "m", names)
    lines = _target_lines(generated.summary)
    assert lines[0] == "- api: test_api_with_x_3"
    assert not any(f"_helper{n}: skipped (over" in line for line in lines for n in range(49))
    assert "- _helper49: skipped (over the 50 targets probed per module)" in lines
    assert "- _helper51: skipped (over the 50 targets probed per module)" in lines
    # api's test already notices any change to _helper0: it gets no test of its own.
    assert "- _helper0: skipped (the other tests notice all it does)" in lines


def test_with_a_time_budget_the_batches_go_on_while_it_lasts(tmp_path: Path) -> None:
    source = "".join(f"def _helper{n}(x: int) -> int:\n    return x + {n}\n\n\n" for n in range(80))
    names = [f"_helper{n}" for n in range(80)]
    generated = generate(tmp_path, {"m.py": source}, "m", names, deadline=time.time() + 600)
    lines = _target_lines(generated.summary)
    assert not any("skipped (over" in line for line in lines)
    assert "(_helper79, 82)," in generated.text  # the fourth batch's last target
    assert "    assert function(3) == expected" in generated.text  # 3 in every row


def test_targets_the_time_did_not_reach_say_so(tmp_path: Path) -> None:
    source = "".join(f"def f{n}(x: int) -> int:\n    return x + {n}\n\n\n" for n in range(30))
    generated = generate(tmp_path, {"m.py": source}, "m", deadline=time.time() - 5)
    lines = _target_lines(generated.summary)
    assert len(lines) == 30
    assert all(line.endswith(": skipped (the time ran out before it was probed)") for line in lines)


def test_special_methods_come_after_the_public_api(tmp_path: Path) -> None:
    generated = generate(
        tmp_path, {"store.py": STORE}, "store", ["Store.__contains__", "LRUStore.oldest"]
    )
    lines = _target_lines(generated.summary)
    assert [line.split(":")[0] for line in lines] == ["- LRUStore.oldest", "- Store.__contains__"]
    oldest = generated.text.index("def test_lru_store_oldest")
    assert oldest < generated.text.index("def test_store_contains")


RULES = """\
RULES = []
_CACHE = {}


def add_rule(pattern: str) -> None:
    def spelled(text: str) -> str:
        return text.lower()

    RULES.insert(0, spelled(pattern))


def doubled(n: int) -> int:
    if n not in _CACHE:
        _CACHE[n] = n * 2
    return _CACHE[n]


class Registry:
    def register(self, name: str) -> None:
        RULES.append(name)
"""


def test_what_changes_the_modules_own_state_is_not_called_by_a_test(tmp_path: Path) -> None:
    # Before: `add_rule("abc")` in a test left RULES changed for every test after it.
    targets = {t.name: t for t in find_targets(RULES, [], "rules")}
    assert "changes the module's RULES" in targets["add_rule"].skip
    assert "changes the module's RULES" in targets["Registry.register"].skip
    assert not targets["doubled"].skip  # a memo cache leaves the results the same
    generated = generate(tmp_path, {"rules.py": RULES}, "rules")
    assert "add_rule(" not in generated.text and "doubled(" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_nested_functions_return_does_not_make_its_owner_a_function_of_value() -> None:
    [target] = find_targets(RULES.replace("    RULES.insert", "    print"), ["add_rule"])
    assert target.procedure  # its None is not asserted


NUMBERS = """\
class Level:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self):
        return self.value

    def __floor__(self):
        return self.value - 1

    def __getattr__(self, name: str):
        if name.startswith("is_"):
            return self.value > 0
        raise AttributeError(name)

    def __unicode__(self):
        return "level %d" % self.value

    def __enter__(self):
        return self
"""


def test_special_methods_with_a_builtin_are_called_through_it(tmp_path: Path) -> None:
    names = ["Level.__index__", "Level.__floor__", "Level.__getattr__", "Level.__unicode__"]
    targets = {t.name: t for t in find_targets(NUMBERS, [*names, "Level.__enter__"], "level")}
    calls = {name: [p.call.source() for p in targets[name].probes] for name in names}
    assert calls["Level.__index__"][0] == "operator.index(level)", calls
    assert calls["Level.__floor__"][0] == "math.floor(level)", calls
    assert any(c.startswith("getattr(level, ") for c in calls["Level.__getattr__"]), calls
    assert calls["Level.__unicode__"][0] == "level.__unicode__()", calls  # no syntax calls it
    assert targets["Level.__enter__"].skip  # a `with` block's: not written
    generated = generate(tmp_path, {"level.py": NUMBERS}, "level", names)
    assert "import math" in generated.text and "import operator" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_the_cap_takes_each_classs_first_methods_before_one_classs_last() -> None:
    big = "".join(
        f"    def m{n}(self, x: int) -> int:\n        return x + {n}\n\n" for n in range(30)
    )
    small = "    def size(self) -> int:\n        return 1\n\n    def name(self) -> str:\n"
    source = f"class Big:\n{big}\nclass Small:\n{small}        return 'small'\n"
    source += "\n\ndef helper(x: int) -> int:\n    return x\n"
    targets = find_targets(source, [], "m")
    probed = [t.name for t in targets if not t.skip]
    # Small's methods and the function are probed although Big alone has more methods
    # than the cap; the probes and tests keep the module's order (a class's together).
    assert probed == ["helper"] + [f"Big.m{n}" for n in range(22)] + ["Small.size", "Small.name"]
    over = [t.name for t in targets if t.skip]
    assert over == [f"Big.m{n}" for n in range(22, 30)]
