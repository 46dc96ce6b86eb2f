"""The builtin generator (`coder gen` with no model), end to end on small modules.

BuiltinGenModel drives the real Agent, tools and LocalSandbox, with the target on the
task message's private data as the gen workflow puts it there. Each generated file is
checked for what its reader would want (one test per behaviour, descriptive names, the
right kind of assert) and must pass in a fresh pytest process three times in a row.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coder.builtin.gen import (
    RECORD_MARK,
    RUN_MARK,
    Aim,
    BuiltinGenModel,
    Call,
    Probe,
    Result,
    Target,
    add_site_calls,
    choose,
    find_targets,
    notices,
    parse_probe_output,
)
from coder.builtin.gen.probe_mutants import digest
from coder.builtin.gen.probing import probe_commands
from tests.helpers import Generated, function_source, generate, run_pytest_in

CALC = '''\
"""Small helpers."""

LIMIT = 10


def scale(value: int, factor: int = 2) -> int:
    return value * factor


def clamp(value: int) -> int:
    if value > LIMIT:
        return LIMIT
    return value


def check_age(age: int) -> int:
    if age < 0:
        raise ValueError("age cannot be negative")
    return age


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def double(n: int) -> int:
    """Twice n.

    >>> double(2)
    4
    """
    return n * 2 + 1 if n > 1 else n * 2


class Counter:
    def __init__(self, start: int = 0) -> None:
        self.value = start

    def add(self, amount: int) -> None:
        if amount < 0:
            raise ValueError("amount must not be negative")
        self.value += amount
'''

CLOCK = """\
import os
import random
import sys
import time


def stamp() -> float:
    return time.time()


def roll(sides: int = 6) -> int:
    if sides < 1:
        raise ValueError("a die has at least one side")
    return random.randint(1, sides)


def _token() -> str:
    return "%08x" % random.getrandbits(32)


def label() -> str:
    return f"t-{_token()}"


def pid_tag() -> str:
    return f"p{os.getpid()}"


def under_pytest() -> bool:
    return "pytest" in sys.modules


def name_hash() -> int:
    return hash("clock")
"""

TEST_CLOCK = """\
from clock import stamp


def test_stamp_is_a_float():
    assert isinstance(stamp(), float)
"""


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(tmp_path_factory.mktemp("calc"), {"calc.py": CALC}, "calc")


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    files = {"clock.py": CLOCK, "tests/test_clock.py": TEST_CLOCK}
    return generate(tmp_path_factory.mktemp("clock"), files, "clock")


# --- 1. what the generated tests say ----------------------------------------------------


def test_a_new_file_says_where_its_tests_came_from(calc: Generated) -> None:
    assert calc.status == "finished"
    assert calc.text.startswith(
        '"""Characterisation tests for calc, written by coder\'s builtin generator."""\n\n'
        "import pytest\n\nfrom calc import Counter, check_age, clamp, double, mean, scale\n"
    )
    assert calc.summary.startswith(
        "builtin generator: wrote 6 tests for calc in tests/test_calc.py"
    )


def test_a_pure_function_is_called_with_its_typical_input_and_defaults(calc: Generated) -> None:
    assert "        (scale, 3, 6),\n" in calc.text  # a row of the int -> int functions' table
    assert "- scale, clamp, check_age: test_scale_clamp_check_age\n" in calc.summary


def test_each_side_of_a_literal_branch_is_a_row_of_one_table(calc: Generated) -> None:
    # clamp's rows share a table with the other functions from one int to an int
    name, columns = "test_scale_clamp_check_age", "function, number, expected"
    assert function_source(calc.text, name, columns) == (
        f"def {name}({columns}):\n    assert function(number) == expected"
    )
    assert (
        '@pytest.mark.parametrize(\n    ("function", "number", "expected"),\n    [\n'
        "        (scale, 3, 6),\n        (clamp, 3, 3),\n        (clamp, 11, 10),\n"
        "        (check_age, 0, 0),\n    ],\n)\n" in calc.text
    )


def test_a_boundary_is_chosen_over_a_typical_value(calc: Generated) -> None:
    # check_age(0) tells `age < 0` from `age <= 0`; check_age(3) tells nothing more.
    assert "        (check_age, 0, 0),\n" in calc.text
    assert "check_age(3)" not in calc.text and "(check_age, 3," not in calc.text


def test_an_exception_is_expected_with_pytest_raises(calc: Generated) -> None:
    assert function_source(calc.text, "test_check_age_raises_for_negative_age") == (
        "def test_check_age_raises_for_negative_age():\n"
        '    with pytest.raises(ValueError, match="age cannot be negative"):\n'
        "        check_age(-1)"
    )


def test_a_float_result_is_compared_with_approx(calc: Generated) -> None:
    assert function_source(calc.text, "test_mean_with_two_values").endswith(
        "assert mean([1.5, 2.5]) == pytest.approx(2.0)"
    )


def test_a_method_that_changes_state_is_checked_through_the_state(calc: Generated) -> None:
    # On an object built with a start of its own, not an empty default: += and = differ.
    assert function_source(calc.text, "test_counter_add_with_amount_3") == (
        "def test_counter_add_with_amount_3():\n"
        "    counter = Counter(start=3)\n"
        "    counter.add(3)\n"
        "    assert counter.value == 6"
    )
    assert "counter.add(-1)" in function_source(
        calc.text, "test_counter_add_raises_for_negative_amount"
    )


def test_a_doctest_the_code_contradicts_is_reported_and_kept_as_a_strict_xfail(
    calc: Generated,
) -> None:
    # The documented behaviour is asserted, never the wrong result.
    assert function_source(calc.text, "test_double_as_its_doctest_says") == (
        "def test_double_as_its_doctest_says():\n    assert double(2) == 4"
    )
    assert (
        '@pytest.mark.xfail(strict=True, reason="possible bug: doctest says double(2) == 4 '
        'but it returns 5")\ndef test_double_as_its_doctest_says' in calc.text
    )
    assert calc.text.count("double(") == 2  # the reason, and the assert
    assert calc.summary.endswith(
        "POSSIBLE BUG: calc.double: doctest says double(2) == 4 but it returns 5"
    )


def test_the_clock_is_frozen_and_random_seeded_before_their_values_are_asserted(
    clock: Generated,
) -> None:
    assert function_source(clock.text, "test_stamp_at_a_fixed_time", "monkeypatch") == (
        "def test_stamp_at_a_fixed_time(monkeypatch):\n"
        '    monkeypatch.setattr("time.time", lambda: 1_700_000_000.0)\n'
        "    assert stamp() == 1700000000.0"
    )
    # label() reaches random only through the module's private _token().
    label = function_source(clock.text, "test_label_with_a_fixed_seed")
    assert label.startswith("def test_label_with_a_fixed_seed():\n    random.seed(1234)\n")
    # A die of one side tells `sides < 1` from `sides <= 1`: the boundary, not the error.
    assert function_source(clock.text, "test_roll_with_sides_at_1") == (
        "def test_roll_with_sides_at_1():\n    random.seed(1234)\n    assert roll(sides=1) == 1"
    )
    assert "_token()" not in clock.text and "pid_tag()" not in clock.text
    assert "- pid_tag: skipped (no deterministic result worth asserting)" in clock.summary


def test_a_hash_of_text_is_not_pinned_although_the_sandbox_fixes_its_seed(
    clock: Generated,
) -> None:
    assert "name_hash" not in clock.text
    assert "- name_hash: skipped (no deterministic result worth asserting)" in clock.summary


STOPWATCH = """\
from random import choice
from time import monotonic as now


class Stopwatch:
    def __init__(self) -> None:
        self.started = now()

    def elapsed(self) -> float:
        return now() - self.started


def pick(names: list[str]) -> str:
    return choice(names)
"""


def test_a_clock_imported_by_name_is_frozen_where_the_module_holds_it(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"stopwatch.py": STOPWATCH}, "stopwatch")
    assert function_source(
        generated.text, "test_stopwatch_elapsed_at_a_fixed_time", "monkeypatch"
    ) == (
        "def test_stopwatch_elapsed_at_a_fixed_time(monkeypatch):\n"
        '    monkeypatch.setattr("stopwatch.now", lambda: 1_700_000_000.0)\n'
        "    stopwatch = Stopwatch()\n"
        "    assert stopwatch.elapsed() == pytest.approx(0.0)"
    )
    assert "    random.seed(1234)\n    assert pick([" in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout


LABELS = (
    "import datetime\nimport uuid\n\n\n"
    "def today_label(prefix: str) -> str:\n"
    "    if not prefix:\n        raise ValueError('prefix')\n"
    "    return f'{prefix}-{datetime.date.today()}'\n\n\n"
    "def new_id() -> str:\n    return str(uuid.uuid4())\n\n\n"
    "def year_of(text: str = '2024-01-31') -> int:\n"
    "    return datetime.date.fromisoformat(text).year\n\n\n"
    "def days_until(day: datetime.date, today: datetime.date | None = None) -> int:\n"
    "    if today is None:\n        today = datetime.date.today()\n"
    "    return (day - today).days\n"
)


def test_a_source_no_test_can_pin_leaves_only_the_errors_asserted(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"labels.py": LABELS}, "labels")
    # today() cannot be frozen: only the error is asserted, and nothing is monkeypatched.
    assert "- today_label: test_today_label_raises_for_empty_prefix\n" in generated.summary
    assert function_source(generated.text, "test_today_label_raises_for_empty_prefix") == (
        "def test_today_label_raises_for_empty_prefix():\n"
        '    with pytest.raises(ValueError, match="prefix"):\n'
        '        today_label("")'
    )
    assert "monkeypatch" not in generated.text
    assert "- new_id: skipped (reads the clock, chance or the environment in a way no test " in (
        generated.summary
    )
    # datetime without now() or today() reads no clock: its value is asserted.
    assert function_source(generated.text, "test_year_of_with_defaults").endswith(
        "assert year_of() == 2024"
    )
    # A call that passes `today` runs no line that reads the clock: its value is asserted.
    days = generated.text.split("def test_days_until", 1)[1]
    assert "today=datetime.date(" in days and "== " in days
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


def test_tests_join_an_existing_file_in_its_import_style(clock: Generated) -> None:
    assert clock.text.startswith(
        "import random\n\nimport pytest\n\nfrom clock import label, roll, stamp\n"
    )
    assert function_source(clock.text, "test_stamp_is_a_float") in TEST_CLOCK


def test_tests_use_an_alias_when_the_file_imports_the_module_so(tmp_path: Path) -> None:
    existing = "import calc as c\n\n\ndef test_old():\n    assert c.scale(1) == 2\n"
    files = {"calc.py": CALC, "tests/test_calc.py": existing}
    generated = generate(tmp_path, files, "calc", ["clamp"])
    assert generated.text.startswith("import pytest\n\n" + existing + "\n\n")  # appended
    assert function_source(generated.text, "test_clamp", "value, expected") == (
        "def test_clamp(value, expected):\n    assert c.clamp(value) == expected"
    )
    assert "from calc import" not in generated.text


def test_a_generated_test_that_fails_under_pytest_is_dropped(clock: Generated) -> None:
    assert "under_pytest" not in clock.text
    assert "- dropped (failed when run): test_under_pytest_false" in clock.summary


@pytest.mark.parametrize("case", ["calc", "clock"])
def test_generated_tests_pass_three_times_in_fresh_processes(
    case: str, request: pytest.FixtureRequest
) -> None:
    generated: Generated = request.getfixturevalue(case)
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=generated.repo,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert " passed" in done.stdout and not re.search(r"\d+ (failed|error)", done.stdout)


# --- 2. the pieces, without a sandbox ---------------------------------------------------


def test_only_results_both_probe_runs_agree_on_are_kept() -> None:
    target = Target("f", probes=[Probe(Call("f", (str(n),))) for n in range(4)])
    same = {"kind": "return", "repr": "3", "type": "int", "literal_ok": True}
    runs = [
        [
            same,
            {**same, "repr": "{'a', 'b'}"},
            {**same, "repr": "0.25"},
            {**same, "repr": "<A at 0x1>", "literal_ok": False},
        ],
        [
            same,
            {**same, "repr": "{'b', 'a'}"},
            {**same, "repr": "0.75"},
            {**same, "repr": "<A at 0x1>", "literal_ok": False},
        ],
    ]
    output = "".join(
        f"{RUN_MARK}{run}\n"
        + "".join(
            f"{RECORD_MARK}{json.dumps({'id': n, **r, 'digest': digest(r)})}\n"
            for n, r in enumerate(records)
        )
        for run, records in enumerate(runs, 1)
    )
    results, problem = parse_probe_output(output, target)
    assert problem == ""
    assert [r.probe.call.args for r in results] == [("0",), ("1",)]  # set order may differ


def test_without_a_target_the_generator_says_so() -> None:
    reply = BuiltinGenModel().complete([{"role": "user", "content": "write tests"}], [])
    [finish] = reply.tool_calls
    assert finish.name == "finish"
    assert "names no target module" in json.loads(finish.arguments)["summary"]


def test_arguments_from_existing_tests_vary_the_typical_call() -> None:
    [target] = find_targets(
        "def area(width: int, height: int) -> int:\n    return width * height\n", []
    )
    add_site_calls(target, ["    assert area(4, 5) == 20", "area(width)"])
    assert [p.call.source() for p in target.probes[:3]] == [
        "area(3, 3)",
        "area(4, 3)",
        "area(3, 5)",
    ]
    assert [p.call.label for p in target.probes[1:3]] == ["width_4", "height_5"]


def test_results_are_minimised_to_those_reaching_uncovered_lines() -> None:
    probes = [Probe(Call("f", (str(n),))) for n in range(3)]
    results = [
        Result(probes[0], "return", "1", lines=frozenset({2, 3})),
        Result(probes[1], "return", "2", lines=frozenset({2, 3})),
        Result(probes[2], "raise", expect="ValueError", lines=frozenset({2, 4})),
    ]
    assert choose(results, Aim(frozenset({4})), lambda result: True) == [results[2]]
    assert choose(results, Aim(), lambda result: True) == [results[0], results[2]]
    assert choose(results, Aim(), lambda result: result.kind == "return") == [results[0]]


def test_results_are_chosen_for_the_mutants_their_asserts_notice() -> None:
    probes = [Probe(Call("f", (str(n),))) for n in range(3)]
    results = [
        Result(probes[0], "return", "1", kills={1: "v"}),
        Result(probes[1], "return", "2", kills={1: "v", 2: "a", 3: "v"}),
        Result(probes[2], "raise", expect="ValueError", kills={4: "k", 5: "o"}),
    ]

    def noticed(result: Result) -> frozenset[int]:
        return notices(result, "t" if result.kind == "raise" else "v")

    aim = Aim(mutants=frozenset({1, 2, 3, 4, 5}))
    chosen = choose(results, aim, lambda result: True, noticed)
    assert chosen == [results[1], results[2]]  # 1 and 3; then 4 (the kind changed)
    assert aim.after(chosen, noticed) == Aim(mutants=frozenset({2, 5}))
    assert choose(results, Aim(mutants=frozenset({2})), lambda result: True, noticed) == []


FOREVER = '''\
def counting(start, stop=None):
    """Numbers from start, up to stop (for ever without one)."""
    while stop is None or start < stop:
        yield start
        start += 1
'''


def test_a_generator_without_an_end_is_stopped_before_it_fills_the_memory(tmp_path: Path) -> None:
    """The probe reads a generator into a list: with no end, it gives up at a bounded
    length rather than at the 2 s alarm, after hundreds of MB."""
    (tmp_path / "forever.py").write_text(FOREVER, encoding="utf-8")
    target = Target("counting", probes=[Probe(Call("counting", ("0", "None"), wrap="list"))])
    [(command, _)] = probe_commands(target, "forever", str(tmp_path))
    measured = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(['sh', '-c', sys.argv[1]], capture_output=True, text=True)\n"
        "print(done.stdout)\n"
        "print('maxrss', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", measured, command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    results, error = parse_probe_output(done.stdout, target)
    assert error == "" and results == []  # ran on for ever: nothing to pin
    assert '"kind":"timeout"' in done.stdout
    peak_kib = int(done.stdout.rsplit("maxrss", 1)[1])
    assert peak_kib < 150_000, peak_kib


def test_a_doctest_that_names_list_sees_the_builtin(tmp_path: Path) -> None:
    """Bounding a generator's list must not change what `list` means on a doctest line."""
    (tmp_path / "forever.py").write_text(FOREVER, encoding="utf-8")
    line = Call("isinstance([1], list) and list(range(2)) == [0, 1]", attribute=True)
    target = Target("counting", probes=[Probe(line, verbatim=True)])
    [(command, _)] = probe_commands(target, "forever", str(tmp_path))
    done = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    results, error = parse_probe_output(done.stdout, target)
    assert error == "" and [result.repr for result in results] == ["True"], done.stdout


CLI = """\
class UsageExit(SystemExit):
    pass


def parse(argv):
    if not argv:
        raise UsageExit("usage: prog FILE")
    return argv[0]
"""


def test_a_cli_that_exits_with_its_own_exception_is_answered_by_it(tmp_path: Path) -> None:
    """A SystemExit of the module's own class (docopt's DocoptExit) is what the function
    answers to a bad command line: a raise a test can pin, not a probe that died."""
    (tmp_path / "cli.py").write_text(CLI, encoding="utf-8")
    target = Target("parse", probes=[Probe(Call("parse", ("[]",)))])
    [(command, _)] = probe_commands(target, "cli", str(tmp_path))
    done = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    results, error = parse_probe_output(done.stdout, target)
    assert error == "", done.stdout
    [result] = results
    assert (result.kind, result.expect, result.repr) == ("raise", "UsageExit", "usage: prog FILE")


LAZY = """\
def shouted(text: str):
    return map(str.upper, text.split())


def evens(numbers: list):
    return (n for n in numbers if n % 2 == 0)


class Countdown:
    def __init__(self, start: int) -> None:
        self.left = start

    def __iter__(self):
        return self

    def __next__(self) -> int:
        if self.left <= 0:
            raise StopIteration
        self.left -= 1
        return self.left + 1

    def __repr__(self) -> str:
        return f"Countdown({self.left})"


def countdown(start: int) -> Countdown:
    return Countdown(start)
"""


def test_an_iterator_from_elsewhere_is_checked_by_its_items(tmp_path: Path) -> None:
    """`map(...)` and a generator expression say nothing in their repr: their items are
    the result. An iterator class of the module's own keeps its own repr."""
    generated = generate(tmp_path, {"lazy.py": LAZY}, "lazy", ["shouted", "evens", "countdown"])
    text = generated.text
    assert 'list(shouted("abc")) == ["ABC"]' in text, text
    assert "list(evens([3, 1, 2])) == [2]" in text, text
    assert "list(countdown(" not in text and "Countdown(" in text, text
    assert run_pytest_in(generated.repo).returncode == 0


READER = """\
import sys


class reader:
    def __init__(self, stream=None, sep=" "):
        self.stream = sys.stdin if stream is None else stream
        self.sep = sep

    def words(self) -> list:
        return self.stream.read().split(self.sep)


def first_line(default: str = "") -> str:
    return sys.stdin.readline().strip() or default
"""


def test_an_object_of_a_lower_case_class_and_standard_input_as_pytest_has_it(
    tmp_path: Path,
) -> None:
    """`reader_ = reader(...)`: a variable named as the class would shadow it. A call that
    reads standard input fails under pytest's capture, and fails so in the probe too:
    no test of it is written to fail when run."""
    generated = generate(tmp_path, {"rd.py": READER}, "rd", ["reader.words", "first_line"])
    assert "reader_ = reader(" in generated.text and "reader = reader(" not in generated.text
    assert "dropped" not in generated.summary, generated.summary
    assert run_pytest_in(generated.repo).returncode == 0
