"""`--html FILE` on real runs (builtin engine, local sandbox): the page of `coder gen`
marks the lines no test runs and the changes no test notices on the module's source, with
the scores before and after and the tests added; the page of `coder fix` shows each
test before and after with the reason and the verified patch. Read back with html.parser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.cli import main
from tests.delivery.pages import HOSTILE, SECRET, Node, Run, parse
from tests.helpers import fixture_repo

pytestmark = pytest.mark.timeout(600)  # the shared runs take a minute or so on a busy box


def _source_rows(tree: Node) -> dict[int, Node]:
    [table] = tree.all("table", "source")
    rows = [row for row in table.all("tr") if "note" not in row.classes]
    return {int(row.attrs["id"].rsplit("-L", 1)[1]): row for row in rows}


def _cell(row: Node, cls: str) -> str:
    return next(cell for cell in row.all("td") if cls in cell.classes).text()


def test_gen_page_marks_each_line_no_test_runs_and_each_change_no_test_notices(
    gen_run: Run,
) -> None:
    report = gen_run.report
    assert report["status"] == "improved" and gen_run.page.is_file()
    [module] = report["modules"]
    source = (gen_run.repo / "shop" / "pricing.py").read_text(encoding="utf-8").splitlines()
    rows = _source_rows(gen_run.tree())
    # Every line is there, as text (the hostile one too), the secret hidden.
    assert {n: _cell(row, "src") for n, row in rows.items()} == {
        n: line.replace(SECRET, "[REDACTED]") for n, line in enumerate(source, 1)
    }
    marked = {
        kind: {n for n, row in rows.items() if kind in row.classes}
        for kind in ("missed", "gained", "partial", "mutant")
    }
    main_line = next(n for n, line in enumerate(source, 1) if HOSTILE in line)
    assert marked["missed"] == set(module["lines_missed_after"]) == {main_line + 1}
    assert "no test runs this line" in rows[main_line + 1].attrs["title"]
    assert marked["partial"] == {main_line}  # `if __name__ == ...` never takes its branch
    gained = set(module["lines_missed_before"]) - set(module["lines_missed_after"])
    assert marked["gained"] == gained and len(gained) > 10
    # Each surviving mutant: its line marked, its change in the tooltip and in a note.
    survivors = module["untested"]
    assert survivors and marked["mutant"] == {s["line"] for s in survivors}
    notes = [row.text() for row in gen_run.tree().all("tr", "note")]
    for survivor in survivors:
        assert survivor["change"] in rows[survivor["line"]].attrs["title"]
        original, _, replacement = survivor["change"].strip("`").partition("` -> `")
        said = f"{original} \u2192 {replacement} ({survivor['operator'].replace('_', ' ')})"
        assert any(said in note for note in notes)
    assert not rows[1].classes  # the docstring: nothing to say


def test_gen_page_shows_the_scores_before_and_after_and_the_tests_added(gen_run: Run) -> None:
    report, tree = gen_run.report, gen_run.tree()
    cards = {card.all("div", "label")[0].text(): card.text() for card in tree.all("div", "card")}
    line, mutation = cards["Line coverage"], cards["Mutation score"]
    assert f"{report['coverage_before']['line']:.1f}%" in line
    assert f"{report['coverage_after']['line']:.1f}%" in line
    assert f"{report['mutation_before']['score']:.1f}%" in mutation
    assert f"{report['mutation_after']['score']:.1f}%" in mutation
    assert report["mutation_after"]["score"] > report["mutation_before"]["score"]
    text = tree.text()
    added = [row.text() for row in tree.all("tr", "add")]
    assert report["tests_added"]
    for nodeid in report["tests_added"]:
        assert nodeid in text
        name = nodeid.split("::")[-1].split("[")[0]
        assert any(f"def {name}(" in row for row in added), name


def test_fix_page_shows_each_test_before_and_after_and_the_verified_patch(fix_run: Run) -> None:
    report, tree = fix_run.report, fix_run.tree()
    assert report["status"] == "fixed" and len(report["tests"]) == 2
    [table] = tree.all("table", "tests")
    rows = {row.all("td")[0].text(): row for row in table.all("tr")[1:]}
    assert set(rows) == {test["nodeid"] for test in report["tests"]}
    for test in report["tests"]:
        # the parametrized row's id changed with its value: its new row's outcome
        assert test["after"] == "passed" and test["failure"].startswith("AssertionError")
        before, after, verdict, why = (cell.text() for cell in rows[test["nodeid"]].all("td")[1:])
        assert before == "failed" + test["failure"] and after == "passed"
        assert verdict.startswith("repaired") and why == test["reason"]
        [link] = rows[test["nodeid"]].all("a")
        target = tree.by_id(link.attrs["href"].removeprefix("#"))
        assert target.all("h3")[0].text() == "tests/test_format.py"
    removed = [_cell(row, "src") for row in tree.all("tr", "del")]
    added = [_cell(row, "src") for row in tree.all("tr", "add")]
    assert f'        (1536, "1.5 KB"),  # {HOSTILE}' in removed
    assert f'        (1536, "1.5 KiB"),  # {HOSTILE}' in added
    assert '    assert format_size(5 * 1024 * 1024) == "5.0 MiB"' in added


@pytest.mark.parametrize("name", ["gen_run", "fix_run"])
def test_pages_hold_no_markup_of_the_repository_and_no_secret(
    name: str, request: pytest.FixtureRequest
) -> None:
    run: Run = request.getfixturevalue(name)
    html, tree = run.html, run.tree()
    assert SECRET not in html and "[REDACTED]" in html
    assert HOSTILE in tree.text() and "<script" not in html and "<img" not in html
    tags = {node.tag for node in tree.walk()}
    assert tags.isdisjoint({"script", "img", "iframe", "object", "embed", "link", "form"})
    attributes = [(name, value) for node in tree.walk() for name, value in node.attrs.items()]
    assert not [name for name, _ in attributes if name.startswith("on") or name == "src"]
    assert all(value.startswith("#") for name, value in attributes if name == "href")
    [policy] = [m for m in tree.all("meta") if m.attrs.get("http-equiv")]
    assert policy.attrs["content"].startswith("default-src 'none'")


def test_an_html_path_that_is_a_folder_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("gen_pure", tmp_path)
    code = main(["gen", str(repo), "--sandbox", "local", "--html", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and f"--html {tmp_path} is a folder" in err
    assert len(err.strip().splitlines()) == 1 and not (repo / ".coder").exists()


def test_a_target_module_without_mutants_still_gets_its_lines() -> None:
    """With --max-mutants 0 the page still has the modules tests were written for."""
    from coder.workflows.gen.strength import Strength
    from tools import CoverageRun, FileCoverage

    def run(missing: list[int], arcs: list[tuple[int, int]]) -> CoverageRun:
        file = FileCoverage(path="m.py", statements=4, missing_lines=missing, branches=2)
        return CoverageRun(files={"m.py": file.model_copy(update={"missing_branches": arcs})})

    [module] = Strength().scores(run([2, 3], [(1, 2)]), run([3], [(1, -1)]), ["m.py"])
    assert module.mutation_before is None and module.untested == []
    assert (module.lines_missed_before, module.lines_missed_after) == ([2, 3], [3])
    assert module.branches_missed == [1]  # from the last measurement


def test_pages_of_runs_that_did_little_still_say_what_happened() -> None:
    from coder.delivery.html import fix_page, gen_page
    from coder.delivery.report import FixReport, GenReport, ModuleScores, Survivor

    common = {"run_id": "r1", "model": "builtin", "sandbox": "local"}
    failing = GenReport(command="gen", status="suite_failing", error=HOSTILE, **common)
    assert HOSTILE in parse(gen_page(failing, {})).text()
    odd = Survivor(path="m.py", line=9, operator="remove_statement", change="<b>gone</b>")
    module = ModuleScores(path="m.py", untested=[odd], lines_missed_before=[1])
    shown = parse(gen_page(failing.model_copy(update={"modules": [module]}), {}))
    assert "Its source could not be read." in shown.text()
    assert "line 9: <b>gone</b>" in shown.text()
    nothing = parse(fix_page(FixReport(command="fix", status="nothing_to_do", **common)))
    assert "No test failed at baseline." in nothing.text()
    assert "No change was verified." in nothing.text()
