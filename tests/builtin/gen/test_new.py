"""A class built by its `__new__` (an immutable value: `Fraction("3/4")`) is called with
the arguments its `__new__` takes, as a class with an `__init__` is."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import generate, run_pytest_in

MONEY = """\
class Money:
    __slots__ = ("_cents",)

    def __new__(cls, amount: str | int = "0"):
        self = super().__new__(cls)
        if isinstance(amount, str):
            whole, _, cents = amount.partition(".")
            self._cents = int(whole) * 100 + int(cents or 0)
        elif isinstance(amount, int):
            self._cents = amount * 100
        else:
            raise TypeError("amount must be str or int")
        return self

    def __repr__(self):
        return f"Money({self._cents // 100}.{self._cents % 100:02d})"

    @property
    def cents(self) -> int:
        return self._cents
"""


def test_a_class_built_by_new_is_called_with_what_new_takes(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"money.py": MONEY}, "money", ["Money.__new__"])
    assert "special method" not in generated.summary, generated.summary
    assert "Money(amount=" in generated.text
    assert "pytest.raises(TypeError" in generated.text  # its own raise, reached
    assert "expected_cents" in generated.text  # the column `money.cents` is checked against
    assert run_pytest_in(generated.repo).returncode == 0
