"""A module's source with what no test checks marked on its lines: lines no test runs,
lines the new tests run, branches never taken, and the changes (surviving mutants) no
test notices, each with a tooltip and, for the mutants, a note under the line."""

from __future__ import annotations

import re
from dataclasses import dataclass

from coder.delivery.html.page import esc, plural
from coder.delivery.report import ModuleScores, Survivor

_CHANGE = re.compile(r"`(.*)` -> `(.*)`", re.DOTALL)
# Python's own line ends (str.splitlines also breaks at form feeds, U+2028...: the line
# numbers would drift from coverage's).
_NEWLINE = re.compile(r"\r\n|\r|\n")
MISSED = "no test runs this line"
GAINED = "no test ran this line before; the new tests run it"
PARTIAL = "a branch from this line is never taken"
LEGEND = (
    ("missed", "line no test runs"),
    ("gained", "line the new tests run"),
    ("partial", "branch never taken"),
    ("mutant", "change no test notices"),
)


@dataclass(frozen=True)
class Marks:
    """What to mark on which line of one module."""

    missed: frozenset[int]
    gained: frozenset[int]
    partial: frozenset[int]
    mutants: dict[int, list[Survivor]]

    @classmethod
    def of(cls, module: ModuleScores) -> Marks:
        after = module.lines_missed_after
        missed = set(module.lines_missed_before if after is None else after)
        gained = set(module.lines_missed_before) - missed if after is not None else set()
        mutants: dict[int, list[Survivor]] = {}
        for survivor in module.untested:
            mutants.setdefault(survivor.line, []).append(survivor)
        return cls(
            frozenset(missed),
            frozenset(gained),
            frozenset(set(module.branches_missed) - missed),
            mutants,
        )

    def classes(self, number: int) -> list[str]:
        found = [
            name
            for name, lines in (
                ("missed", self.missed),
                ("gained", self.gained),
                ("partial", self.partial),
            )
            if number in lines
        ]
        return found + (["mutant"] if number in self.mutants else [])

    def tip(self, number: int) -> str:
        said = {"missed": MISSED, "gained": GAINED, "partial": PARTIAL}
        tips = [said[name] for name in self.classes(number) if name in said]
        survivors = self.mutants.get(number, [])
        if survivors:
            changes = "; ".join(survivor.change for survivor in survivors)
            tips.append(f"{plural(len(survivors), 'change')} no test notices: {changes}")
        return "; ".join(tips)


def legend() -> str:
    keys = "".join(
        f'<span><span class="key {name}"></span>{esc(said)}</span>' for name, said in LEGEND
    )
    return f'<div class="legend">{keys}</div>'


def source_table(module: ModuleScores, text: str, anchor: str) -> str:
    """Every line of `text`, numbered and marked; each surviving mutant noted below its
    line. Line N is at `#{anchor}-LN`."""
    marks = Marks.of(module)
    rows: list[str] = []
    for number, line in enumerate(source_lines(text), 1):
        classes = marks.classes(number)
        attributes = (
            f' class="{" ".join(classes)}" title="{esc(marks.tip(number))}"' if classes else ""
        )
        rows.append(
            f'<tr id="{esc(anchor)}-L{number}"{attributes}><td class="num">{number}</td>'
            f'<td class="src">{_code(line)}</td></tr>'
        )
        ran = number not in marks.missed
        rows += [_note(survivor, ran) for survivor in marks.mutants.get(number, [])]
    return f'<div class="scroll"><table class="code source">{"".join(rows)}</table></div>'


def source_lines(text: str) -> list[str]:
    """The lines of a Python source as its line numbers count them."""
    lines = _NEWLINE.split(text)
    return lines[:-1] if lines and not lines[-1] else lines


def _code(line: str) -> str:
    """The line, its code apart from its indentation (so a mark underlines code only)."""
    code = line.lstrip()
    indent = line[: len(line) - len(code)]
    return f'{esc(indent)}<span class="code">{esc(code)}</span>' if code else esc(line)


def _note(survivor: Survivor, ran: bool) -> str:
    """The change no test notices; `ran`: some test runs its line (as the marks say)."""
    how = "a test runs this line, yet none notices" if ran else "no test runs this line"
    operator = esc(survivor.operator.replace("_", " "))
    return (
        f'<tr class="note"><td class="num"></td><td>mutant survives: {_change(survivor.change)} '
        f"({operator}) &mdash; {how}</td></tr>"
    )


def _change(change: str) -> str:
    """A change such as `a < b` -> `a <= b` as two code spans and an arrow; other
    wording as it is."""
    found = _CHANGE.fullmatch(change)
    if found is None:
        return f"<code>{esc(change)}</code>"
    return f"<code>{esc(found[1])}</code> &rarr; <code>{esc(found[2])}</code>"
