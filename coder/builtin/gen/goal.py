"""The module to write tests for, as the gen workflow describes it on the task message,
and what became of it: the outcome and the finish summary."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from coder.builtin.gen.mutants import Survivor


@dataclass(frozen=True)
class GenTarget:
    """The module to write tests for, as the gen workflow describes it."""

    path: str
    module: str
    test_file: str
    functions: list[str] = field(default_factory=list)
    uncovered_lines: dict[str, list[int]] = field(default_factory=dict)
    survivors: list[Survivor] | None = None
    """Mutants no test kills yet, when the workflow names some (None: it did not; an
    empty list says as little, as a module it did not analyse gets one too)."""
    deadline: float | None = None
    """When the time for writing runs out (seconds since the epoch, as time.time()):
    probes then run no more mutants and no second search round starts."""

    @classmethod
    def from_data(cls, data: Any) -> GenTarget | None:
        if not isinstance(data, dict) or not data.get("path") or not data.get("module"):
            return None
        test_file = data.get("test_file") or f"tests/test_{data['module'].split('.')[-1]}.py"
        survivors = data.get("survivors")
        return cls(
            str(data["path"]),
            str(data["module"]),
            str(test_file),
            [str(name) for name in data.get("functions") or []],
            {str(k): [int(n) for n in v] for k, v in (data.get("uncovered_lines") or {}).items()},
            _survivors(survivors) if isinstance(survivors, list) and survivors else None,
            _deadline(data.get("deadline")),
        )

    def spent(self) -> bool:
        return self.deadline is not None and time.time() >= self.deadline

    @property
    def root(self) -> str:
        """The folder the module is imported from ("." or e.g. "src")."""
        depth = self.module.count(".") + 1 + self.path.endswith("__init__.py")
        parts = self.path.split("/")[:-depth]
        return "/".join(parts) or "."


def _deadline(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _survivors(data: list[Any]) -> list[Survivor]:
    found = [Survivor.from_data(item) for item in data]
    return [survivor for survivor in found if survivor is not None]


@dataclass
class GenOutcome:
    tests: dict[str, list[str]] = field(default_factory=dict)
    """Target name -> the tests written for it (and kept)."""
    skipped: dict[str, str] = field(default_factory=dict)
    bugs: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def gen_summary(goal: GenTarget, outcome: GenOutcome, written: bool, round_: str = "") -> str:
    """The finish summary: tests per target, skipped targets, then POSSIBLE BUG lines."""
    count = sum(len(names) for names in outcome.tests.values())
    where = f" in {goal.test_file}" if written and count else ""
    wrote = f"wrote {count} test{'s' * (count != 1)} for {goal.module}{where}"
    lines = [f"builtin generator: {round_}{wrote}"]
    lines += [f"- {name}: {', '.join(names)}" for name, names in outcome.tests.items()]
    lines += [f"- {name}: skipped ({why})" for name, why in outcome.skipped.items()]
    if outcome.dropped:
        lines.append(f"- dropped (failed when run): {', '.join(outcome.dropped)}")
    return "\n".join(lines + outcome.bugs)
