"""The page of a `coder gen` run: coverage and mutation score before and after, each
target module's source with what no test checks marked, the tests added (their code),
the possible bugs, and the candidates dropped and why."""

from __future__ import annotations

from collections.abc import Mapping

from coder.delivery.html.diff import diff_boxes
from coder.delivery.html.page import card, cards, document, esc, header, percent, plural, section
from coder.delivery.html.source import legend, source_table
from coder.delivery.report import Coverage, GenReport, ModuleScores, MutationScore


def gen_page(report: GenReport, sources: Mapping[str, str]) -> str:
    """The whole page; `sources` holds each module's text by path (a module missing from
    it is shown without its source)."""
    body = [
        header(report),
        _summary(report),
        _modules(report, sources),
        _tests(report),
        _possible_bugs(report),
        _rejected(report),
    ]
    return document(f"coder gen {report.run_id}: {report.status}", body)


def _summary(report: GenReport) -> str:
    was, now = report.coverage_before, report.coverage_after
    goal = f"goal {report.goal:g}%" if report.goal is not None else ""
    mutation_goal = f"goal {report.mutation_goal:g}%" if report.mutation_goal is not None else ""
    return cards(
        [
            _figure("Line coverage", _line(was), _line(now), goal),
            _figure("Branch coverage", _branch(was), _branch(now)),
            _figure(
                "Mutation score",
                _score(report.mutation_before),
                _score(report.mutation_after),
                _killed(report.mutation_after or report.mutation_before) or mutation_goal,
            ),
            card("Tests added", str(len(report.tests_added)), None, _rejected_note(report)),
        ]
    )


def _figure(label: str, before: str, after: str, note: str = "") -> str:
    if after == "n/a":
        return card(label, before, None, note)
    rose = _number(after) > _number(before)
    fell = _number(after) < _number(before)
    return card(label, before, after, note, "good" if rose else "bad" if fell else "")


def _number(shown: str) -> float:
    return float(shown.rstrip("%")) if shown != "n/a" else 0.0


def _line(coverage: Coverage | None) -> str:
    return percent(coverage.line if coverage else None)


def _branch(coverage: Coverage | None) -> str:
    return percent(coverage.branch if coverage else None)


def _score(score: MutationScore | None) -> str:
    return percent(score.score if score else None)


def _killed(score: MutationScore | None) -> str:
    if score is None or not score.total:
        return ""
    unrun = f"; {score.not_run} not run in time" if score.not_run else ""
    return f"{score.killed} of {plural(score.total, 'injected bug')} noticed{unrun}"


def _rejected_note(report: GenReport) -> str:
    return f"{len(report.rejected)} candidates dropped" if report.rejected else ""


def _modules(report: GenReport, sources: Mapping[str, str]) -> str:
    if not report.modules:
        return ""
    boxes = [
        _module(module, sources.get(module.path), f"m{number}")
        for number, module in enumerate(report.modules, 1)
    ]
    return section("Modules", "".join(boxes), count=len(boxes), anchor="modules")


def _module(module: ModuleScores, text: str | None, anchor: str) -> str:
    return (
        f'<div class="box module" id="{esc(anchor)}"><header><h3>{esc(module.path)}</h3>'
        f'<span class="stats">{_module_stats(module)}</span></header>'
        f"{_source(module, text, anchor)}{_survivors_shown(module)}</div>"
    )


def _source(module: ModuleScores, text: str | None, anchor: str) -> str:
    """The marked source; without it, the changes no test notices as a list."""
    if text is not None:
        return legend() + source_table(module, text, anchor)
    changes = "".join(
        f"<li>line {survivor.line}: <code>{esc(survivor.change)}</code></li>"
        for survivor in module.untested
    )
    listed = f'<ul class="plain legend">{changes}</ul>' if changes else ""
    return f'<p class="muted legend">Its source could not be read.</p>{listed}'


def _module_stats(module: ModuleScores) -> str:
    was, now = module.coverage_before, module.coverage_after
    parts = [
        f"line <b>{_line(was)}</b> &rarr; <b>{_line(now)}</b>",
        f"branch <b>{_branch(was)}</b> &rarr; <b>{_branch(now)}</b>",
    ]
    if module.mutation_before is not None:
        parts.append(
            f"mutation <b>{_score(module.mutation_before)}</b> &rarr; "
            f"<b>{_score(module.mutation_after)}</b>"
        )
    missed = module.lines_missed_after
    missed = module.lines_missed_before if missed is None else missed
    parts.append(esc(plural(len(missed), "line") + " no test runs"))
    return "".join(f"<span>{part}</span>" for part in parts)


def _survivors_shown(module: ModuleScores) -> str:
    """A note when the report lists only some of the module's surviving mutants."""
    score = module.mutation_after or module.mutation_before
    alive = score.total - score.killed if score else 0
    if alive <= len(module.untested):
        return ""
    return (
        f'<p class="muted legend">Showing the {len(module.untested)} most telling of '
        f"{alive} changes no test notices.</p>"
    )


def _tests(report: GenReport) -> str:
    if not report.tests_added:
        return section("Tests added", '<p class="muted">No test was kept.</p>')
    names = "".join(f"<li><code>{esc(nodeid)}</code></li>" for nodeid in report.tests_added)
    code = diff_boxes(report.patch)
    body = f'<ul class="plain">{names}</ul><h3 class="sub">Their code</h3>{code}'
    return section("Tests added", body, count=len(report.tests_added), anchor="tests")


def _possible_bugs(report: GenReport) -> str:
    if not report.possible_bugs:
        return ""
    items = "".join(
        f'<div class="box"><header><h3>{esc(bug.test or "(no test named)")}</h3></header>'
        f'<pre class="error">{esc(bug.message)}</pre>'
        f'<div class="scroll"><pre>{esc(bug.evidence)}</pre></div></div>'
        for bug in report.possible_bugs
    )
    return section("Possible bugs", items, count=len(report.possible_bugs))


def _rejected(report: GenReport) -> str:
    rows = "".join(
        f'<tr><td><code>{esc(nodeid)}</code></td><td class="why">{esc(why)}</td></tr>'
        for nodeid, why in report.rejected.items()
    )
    rows += "".join(
        f'<tr><td><code>{esc(path)}</code></td><td class="why">not reached: --time-budget '
        "ran out</td></tr>"
        for path in report.not_reached
    )
    if not rows:
        return ""
    table = (
        f'<table class="grid"><tr><th>Candidate</th><th>Why it was dropped</th></tr>{rows}</table>'
    )
    return section("Not kept", table, count=len(report.rejected) + len(report.not_reached))
