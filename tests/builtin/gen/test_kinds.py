"""The builtin generator on values of several kinds and on objects in their edge states:
a parameter the body tells kinds apart by meets each kind early and one it does not
expect; a parameter named after a type holds one; an operator meets an operand of another
type; attributes made of methods by assignment (`spread = _Computed(_get_spread)`,
`label = property(_get_label, _set_label)`) are read and set as attributes; an object
is also built with one item and with none; an infinite result is asserted as `math.inf`.

End to end through the real Agent and LocalSandbox (tests/helpers.generate), then the
generated file run by pytest in a fresh process.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from coder.builtin.gen import find_targets
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.kinds import foreign, kind_of, spread
from coder.builtin.gen.params import params_of
from coder.builtin.gen.probe import parse_probe_output
from coder.builtin.gen.probing import probe_commands
from coder.builtin.gen.values import Value, guessed_values
from tests.helpers import function_source, generate, param_values, run_pytest_in

MASK = """\
class Mask:
    \"\"\"A fixed-width bit mask.\"\"\"

    def __init__(self, value=0, width=None):
        if type(value) is list:
            value = int("".join("1" if bit else "0" for bit in value) or "0", 2)
        if type(value) is bytes:
            value = int.from_bytes(value, "big")
        if type(value) is str:
            value = int(value.removeprefix("0b") or "0", 2)
        if type(value) is not int:
            raise TypeError(f"cannot make a mask of {type(value).__name__}")
        self.value = value
        self.width = width if width is not None else max(value.bit_length(), 1)

    def __eq__(self, other):
        if not isinstance(other, Mask):
            return NotImplemented
        return (self.value, self.width) == (other.value, other.width)

    def __or__(self, other):
        if type(other) is not Mask:
            return NotImplemented
        return Mask(self.value | other.value, max(self.width, other.width))

    def __rshift__(self, count):
        return Mask(self.value >> count, self.width)

    def __repr__(self):
        return f"Mask({self.value!r}, {self.width!r})"

    @classmethod
    def from_list(cls, list_):
        return cls(list_)

    @classmethod
    def from_bytes(cls, bytes_):
        return cls(bytes_)
"""
SAMPLES = """\
class _Computed:
    def __init__(self, func):
        self.func = func

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if not obj.values:
            return obj.default
        return self.func(obj)


class Samples:
    def __init__(self, values, default=0.0):
        self.values = list(values)
        self.default = default
        self._label = ""

    def _get_spread(self):
        return max(self.values) - min(self.values)

    spread = _Computed(_get_spread)

    def _get_label(self):
        return self._label

    def _set_label(self, text):
        self._label = text.strip()

    label = property(_get_label, _set_label)

    def zscore(self, value):
        mean = sum(self.values) / len(self.values)
        deviation = (sum((v - mean) ** 2 for v in self.values) / len(self.values)) ** 0.5
        if deviation == 0:
            if value > mean:
                return float("inf")
            if value < mean:
                return float("-inf")
            return 0.0
        return (value - mean) / deviation
"""


def test_a_parameter_told_apart_by_kind_meets_each_kind_and_an_unexpected_one() -> None:
    values = param_values(MASK, "__init__")["value"]
    kinds = [kind_of(source) for source in values[:6]]
    # The typical value, then a list, bytes and text within the first calls (not after
    # every number), and a float none of the checks expects: its TypeError branch.
    assert {"list", "bytes", "str", "float"} <= set(kinds), values
    assert param_values(MASK, "from_list")["list_"][:2] == ["[3, 1, 2]", "[]"]
    assert param_values(MASK, "from_bytes")["bytes_"][0] == 'b"abc"'
    assert kind_of("int") == ""  # a name is no kind: left where it is


def test_a_parameter_named_after_a_type_or_a_notation_holds_one() -> None:
    def first(name: str) -> str:
        return guessed_values(name)[0].source

    assert [first(n) for n in ("dict_", "int_", "set_", "str_")] == ['{"a": 1, "b": 2}', "3"] + [
        "{1, 2}",
        '"abc"',
    ]
    assert [v.source for v in guessed_values("hex")][:2] == ['"ff"', '"0x1A"']
    assert '"101"' in [v.source for v in guessed_values("bin")]
    assert guessed_values("buf")[0].source == 'b"abc"'
    assert first("kwargs") == first("extra_kwargs") == '{"a": 1, "b": 2}'  # handed on whole
    assert first("args") == first("used_args") == "[3, 1, 2]"


READ_KEYS = '''\
def banner(text: str, settings: dict, options) -> str:
    """Frame `text`.

    >>> banner("a", {"width": 3}, {})
    '*a*'
    """
    if "abc" in text:
        return text
    width = settings.get("width", 0)
    if settings["fill"] and options.get("upper"):
        text = text.upper()
    return text.center(width, settings["fill"])


def lookup(config: dict[str, int]) -> int:
    return config["retries"] if "retries" in config else 0


def offset(matches: Dict[str, str], counts: dict[str, int]) -> str:
    sign, hours = matches.get("tz_sign"), int(matches.get("tz_hour", 0))
    return f"{sign}{hours + counts['name']}:{matches['timezone']}"
'''


def test_a_dict_parameter_is_given_the_keys_the_body_reads() -> None:
    values = param_values(READ_KEYS, "banner")
    # The doctest's dict first, then one holding the keys read (each once, in the
    # body's order); a text tested with `in` reads no key.
    assert values["settings"][:2] == ['{"width": 3}', '{"width": 3, "fill": 3}']
    assert not any(source.startswith("{") for source in values["text"])
    assert values["options"] == ["{}"]  # nothing says it is a dict but the doctest's {}
    assert param_values(READ_KEYS, "lookup")["config"][0] == '{"retries": 3}'  # typed
    # Of the hint's value type: a number's digits for a text, a text for what is none.
    matches, counts = param_values(READ_KEYS, "offset").values()
    assert matches[0] == '{"tz_sign": "3", "tz_hour": "3", "timezone": "abc"}'
    assert counts[0] == '{"name": 1}'  # a name would be "abc": not a number


ERRORS = '''\
def describe(exc, status: Exception) -> str:
    """One line for an error."""
    if isinstance(exc, KeyError):
        return f"missing {exc.args[0]} ({status})"
    return f"{type(exc).__name__}: {exc} ({status})"


def retry(error: "OSError | None") -> bool:
    return error is not None and error.errno is None
'''


def test_a_parameter_named_or_typed_as_an_error_holds_one(tmp_path: Path) -> None:
    values = param_values(ERRORS, "describe")
    assert values["exc"][:2] == values["status"] == ['ValueError("abc")', 'KeyError("a")']
    assert param_values(ERRORS, "retry")["error"][:2] == ['OSError("abc")', "None"]
    generated = generate(tmp_path, {"errors.py": ERRORS}, "errors")
    assert 'KeyError("a")' in generated.text and 'ValueError("abc")' in generated.text
    assert "OSError(" in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


def test_a_parameter_the_body_adds_to_is_a_set() -> None:
    source = "def note(seen, item):\n    seen.add(item)\n    return len(seen)\n"
    assert param_values(source, "note")["seen"][0] == "{1, 2}"


def test_a_function_named_as_one_returns_results_of_several_kinds() -> None:
    # `func()` gives "", 0 and []: the caller's branch for each kind of result.
    assert [v.source for v in guessed_values("func")] == ["str", "int", "list"]
    assert [v.source for v in guessed_values("callback")][:1] == ["str"]


def test_spread_keeps_an_order_that_shows_each_kind_first_already() -> None:
    def values(*sources: str) -> list[Value]:
        return [Value(source, source, "hint") for source in sources]

    plain = values("3", '"abc"', "[3, 1, 2]", "None", '{"a": 1}', "0")
    assert spread(plain) == plain
    late = values('"a"', '"b"', '"c"', "0", "[1]")
    assert [v.source for v in spread(late)] == ['"a"', "0", "[1]", '"b"', '"c"']
    assert [v.source for v in foreign(values("3", '"a"'), "x")] == ["2.5"]
    assert [v.source for v in foreign(values("2.5", "None"), "x")] == ['"abc"']


def test_a_shift_operand_is_a_number() -> None:
    assert param_values(MASK, "__rshift__")["count"][:3] == ["3", "0", "-1"]


def test_an_equality_that_checks_its_operand_meets_another_type_on_a_plain_instance() -> None:
    target = find_targets(MASK, ["Mask.__eq__"], "mask")[0]
    calls = {(probe.setup[0].source(), probe.call.source()) for probe in target.probes}
    assert ("Mask()", "mask == 3") in calls, calls


def test_operators_meet_an_operand_of_another_type(tmp_path: Path) -> None:
    functions = ["Mask.__init__", "Mask.__eq__", "Mask.__or__", "Mask.__rshift__"]
    generated = generate(tmp_path, {"mask.py": MASK}, "mask", functions)
    text = generated.text
    # `__or__` returns NotImplemented for it: Python's TypeError is its design.
    assert function_source(text, "test_mask_or_raises_for_another_type") == (
        "def test_mask_or_raises_for_another_type():\n"
        "    mask = Mask()\n"
        "    with pytest.raises(TypeError):\n"
        "        mask | 3"
    )
    assert 'raises(TypeError, match="cannot make a mask of ")' in text
    assert "(operator.rshift, 3, Mask(" in text, text  # beside `|` in the operations table
    assert run_pytest_in(generated.repo).returncode == 0


def test_attributes_made_by_assignment_are_read_and_set_as_attributes(tmp_path: Path) -> None:
    functions = ["Samples._set_label", "Samples._get_spread", "Samples.zscore"]
    generated = generate(tmp_path, {"samples.py": SAMPLES}, "samples", functions)
    text = generated.text
    assert "_get_" not in text and "_set_" not in text, text
    setter = next(line for line in text.splitlines() if line.startswith("def test_samples_label"))
    body = function_source(text, setter.removeprefix("def ").removesuffix("():"))
    assert "samples.label = " in body and "assert samples.label == " in body, body
    assert "samples.spread ==" in text, text
    # One value and none at all: no spread, and a z-score of plus or minus infinity.
    assert "Samples([7])" in text and "math.inf" in text and "import math" in text, text
    assert run_pytest_in(generated.repo).returncode == 0


def test_private_methods_behind_public_attributes_are_public_api() -> None:
    targets = [t.name for t in find_targets(SAMPLES, [], "samples")]
    assert "Samples._get_spread" in targets and "Samples._get_label" in targets, targets
    assert targets.index("Samples._get_spread") < len(targets) - 1 or len(targets) == 1


def test_objects_are_also_built_with_one_item_and_with_none() -> None:
    target = next(t for t in find_targets(SAMPLES, ["Samples.zscore"], "samples"))
    setups = {probe.setup[0].source() for probe in target.probes if probe.setup}
    assert {"Samples([7])", "Samples([])"} <= setups, setups


def test_a_global_statement_only_read_changes_nothing() -> None:
    source = (
        "TOTAL = 0\n\n"
        "def counted(n):\n    global TOTAL\n    return TOTAL + n\n\n"
        "def count(n):\n    global TOTAL\n    TOTAL += n\n"
    )
    targets = {t.name: t for t in find_targets(source, [], "tally")}
    assert targets["counted"].skip == ""
    assert "TOTAL" in targets["count"].skip


def test_a_functions_parameters_are_worked_out_once_per_module() -> None:
    tree = ast.parse(SAMPLES)
    facts = ModuleFacts.of(tree)
    zscore = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "zscore"
    )
    first = params_of(zscore, True, facts)
    first.clear()  # a caller's list is its own
    again = params_of(zscore, True, facts)
    assert [p.name for p in again] == ["value"]
    assert params_of(zscore, True, ModuleFacts.of(tree)) == again


TOKENS = """\
def make(name, alias=None):
    class Token:
        def __repr__(self):
            if alias:
                return alias
            return f"Token({name!r})"

    return Token()
"""


def test_the_lines_a_results_repr_runs_count_as_the_calls(tmp_path: Path) -> None:
    # The test asserts `repr(make("a")) == "Token('a')"`: it runs that line of __repr__.
    (tmp_path / "tokens.py").write_text(TOKENS, encoding="utf-8")
    target = find_targets(TOKENS, ["make"], "tokens")[0]
    output = "".join(
        subprocess.run(["sh", "-c", command], capture_output=True, text=True, cwd=tmp_path).stdout
        for command, _ in probe_commands(target, "tokens", str(tmp_path))
    )
    results, problem = parse_probe_output(output, target)
    assert problem == ""
    plain = next(r for r in results if r.probe.call.source() == 'make("abc")')
    assert plain.repr == "Token('abc')" and 6 in plain.lines, (plain.repr, plain.lines)
