"""The repair planners with the source's own history, in helper modules, and on tables
built from literal lists: source strings in, exact edits or an honest refusal out."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

from coder.builtin import MODEL_HINT, Plan, Refusal, apply_edits
from coder.builtin.repair import ModuleIndex, plan_import, plan_kwarg, plan_raises
from coder.builtin.repair.helpers import helper_site, imported_helpers, imported_tables
from coder.builtin.repair.parametrize import Located, find_element
from coder.workflows.history import GitHistory
from tests.helpers import commit_all, git, write_tree
from tools import TestOutcome

CLEAN_NOW = "def clean(text, tags=None, strip_disallowed_tags=False, strip_comments=True):\n"
CLEAN_THEN = "def clean(text, tags=None, strip=False, strip_comments=True):\n"
CLEAN_TESTS = (
    "from sanitize import clean\n\n\n"
    "def test_strip():\n    assert clean('<b>x</b>', strip=True) == 'x'\n"
)
DEFINITIONS = {"clean": [("sanitize/__init__.py", CLEAN_NOW + "    ...\n")]}


def history(earlier: dict[str, str]) -> Any:
    """A `Before` that knows the earlier text of the given paths."""
    return lambda path, now: earlier.get(path)


def unexpected_keyword(file: str, line: int, frames: list[tuple[str, int]]) -> TestOutcome:
    return TestOutcome(
        nodeid=f"{file}::test_strip", outcome="failed", file=file, crash_line=line,
        exc_type="TypeError", message="clean() got an unexpected keyword argument 'strip'",
        traceback=[{"file": f, "line": n} for f, n in frames],
    )  # fmt: skip


def edited(source: str, plan: Plan) -> str:
    assert isinstance(plan, list) and plan, plan
    return apply_edits(source, plan)


def refusal(plan: Plan, *words: str) -> str:
    assert isinstance(plan, Refusal), plan
    assert plan.reason.endswith(MODEL_HINT) and all(word in plan.reason for word in words)
    return plan.reason


# -- keyword renames ----------------------------------------------------------------------


def test_without_history_two_strip_parameters_are_refused() -> None:
    failure = unexpected_keyword("tests/t.py", 5, [("tests/t.py", 5)])
    refusal(plan_kwarg(failure, CLEAN_TESTS, "tests/t.py", DEFINITIONS), "no single parameter")


def test_the_last_commits_signature_names_the_renamed_keyword() -> None:
    failure = unexpected_keyword("tests/t.py", 5, [("tests/t.py", 5)])
    before = history({"sanitize/__init__.py": CLEAN_THEN + "    ...\n"})
    plan = plan_kwarg(failure, CLEAN_TESTS, "tests/t.py", DEFINITIONS, before)
    assert edited(CLEAN_TESTS, plan) == CLEAN_TESTS.replace(
        "strip=True", "strip_disallowed_tags=True"
    )
    assert isinstance(plan, list) and "the last commit's signature had it" in plan[0].reason


def test_history_that_added_two_parameters_is_refused_naming_them() -> None:
    failure = unexpected_keyword("tests/t.py", 5, [("tests/t.py", 5)])
    then = "def clean(text, tags=None, strip=False):\n    ...\n"
    plan = plan_kwarg(
        failure, CLEAN_TESTS, "tests/t.py", DEFINITIONS, history({"sanitize/__init__.py": then})
    )
    refusal(plan, "2 names were added (strip_disallowed_tags, strip_comments)")


# -- symbol renames ------------------------------------------------------------------------

SLUG_NOW = (
    "def make_slug(t): ...\ndef slug_words(t): ...\ndef slugs(t): ...\ndef slugified(t): ...\n"
)
SLUG_TESTS = "from blog.slug import slugify\n\n\ndef test_slug():\n    assert slugify('A') == 'a'\n"


def cannot_import(name: str) -> TestOutcome:
    message = f"ImportError: cannot import name '{name}' from 'blog.slug' (blog/slug.py)"
    return TestOutcome(
        nodeid="tests/t.py", outcome="error", file="tests/t.py", line=1,
        exc_type="ImportError", message=message,
    )  # fmt: skip


def test_a_renamed_function_among_similar_names_follows_the_history() -> None:
    sources, paths = {"blog.slug": SLUG_NOW}, {"blog.slug": "blog/slug.py"}
    refusal(plan_import(cannot_import("slugify"), SLUG_TESTS, "tests/t.py", ModuleIndex(sources)))
    then = SLUG_NOW.replace("slugified", "slugify")
    index = ModuleIndex(sources, paths, history({"blog/slug.py": then}))
    plan = plan_import(cannot_import("slugify"), SLUG_TESTS, "tests/t.py", index)
    assert edited(SLUG_TESTS, plan) == SLUG_TESTS.replace("slugify", "slugified")
    assert isinstance(plan, list) and "blog.slug had slugify at the last commit" in plan[0].reason


def test_a_history_that_added_several_names_is_an_honest_refusal() -> None:
    then = "def make_slug(t): ...\ndef slugify(t): ...\n"
    index = ModuleIndex(
        {"blog.slug": SLUG_NOW}, {"blog.slug": "blog/slug.py"}, history({"blog/slug.py": then})
    )
    plan = plan_import(cannot_import("slugify"), SLUG_TESTS, "tests/t.py", index)
    refusal(plan, "slugify` was removed from blog.slug", "slug_words, slugified, slugs")


PACKAGE = "from .render import render_string as render_string\n\n\ndef __getattr__(name):\n"
PACKAGE += "    raise AttributeError(name)\n"
RENDER_NOW = "def render_string(s): ...\ndef render(t): ...\ndef render_stream(s): ...\n"
RENDER_TESTS = "import web\n\n\ndef test_render():\n    assert web.render_template('x') == 'x'\n"


def test_a_name_renamed_in_a_submodule_is_followed_through_the_package() -> None:
    # The package's own __getattr__ raises AttributeError('render_template'): a bare name.
    failure = TestOutcome(
        nodeid="tests/t.py::test_render", outcome="failed", file="tests/t.py", crash_line=5,
        exc_type="AttributeError", message="render_template",
    )  # fmt: skip
    sources = {"web": PACKAGE, "web.render": RENDER_NOW}
    paths = {"web": "web/__init__.py", "web.render": "web/render.py"}
    then = {
        "web/__init__.py": PACKAGE.replace("render_string", "render_template"),
        "web/render.py": RENDER_NOW.replace("render_string", "render_template"),
    }
    index = ModuleIndex(sources, paths, history(then))
    plan = plan_import(failure, RENDER_TESTS, "tests/t.py", index)
    # Spelled from the package, which re-exports the new name.
    assert edited(RENDER_TESTS, plan) == RENDER_TESTS.replace("render_template", "render_string")
    assert isinstance(plan, list) and "web.render had render_template" in plan[0].reason
    # A bare name the test never reads from a module is no import error at all.
    other = "import web\n\n\ndef test_render():\n    assert object().render_template\n"
    refusal(plan_import(failure, other, "tests/t.py", index), "not an import error")


# -- helper modules ------------------------------------------------------------------------

HELPER = "from sanitize import clean\n\n\ndef cleaned(html):\n    return clean(html, strip=True)\n"


def test_the_call_in_a_helper_is_repaired_there() -> None:
    frames = [("tests/test_a.py", 6), ("tests/helpers.py", 5)]
    site = helper_site(unexpected_keyword("tests/test_a.py", 6, frames))
    assert site is not None and (site.file, site.crash_line) == ("tests/helpers.py", 5)
    before = history({"sanitize/__init__.py": CLEAN_THEN + "    ...\n"})
    plan = plan_kwarg(site, HELPER, site.file, DEFINITIONS, before)
    assert edited(HELPER, plan) == HELPER.replace("strip=", "strip_disallowed_tags=")
    assert isinstance(plan, list) and plan[0].path == "tests/helpers.py"


def test_a_frame_in_the_source_or_the_tests_own_line_is_no_helper_site() -> None:
    own = [("tests/helpers.py", 3), ("tests/test_a.py", 6)]
    assert helper_site(unexpected_keyword("tests/test_a.py", 6, own)) is None
    source = [("tests/test_a.py", 6), ("sanitize/__init__.py", 9)]
    assert helper_site(unexpected_keyword("tests/test_a.py", 6, source)) is None


def test_an_exception_type_inside_a_helpers_raises_block_is_retyped() -> None:
    helper = "import pytest\n\n\ndef refused(value):\n    with pytest.raises(KeyError):\n"
    helper += "        check(value)\n"
    failure = TestOutcome(
        nodeid="tests/test_a.py::test_x", outcome="failed", file="tests/test_a.py",
        exc_type="ValueError", message="bad", crash_line=4,
        traceback=[{"file": "tests/test_a.py", "line": 4}, {"file": "tests/conftest.py", "line": 6},
                   {"file": "check.py", "line": 2, "code": "raise ValueError('bad')"}],
    )  # fmt: skip
    site = helper_site(failure)
    assert site is not None and site.file == "tests/conftest.py"
    text = edited(helper, plan_raises(site, helper, site.file))
    assert text == helper.replace("raises(KeyError)", "raises(ValueError)")


def test_the_helpers_a_test_module_imports_are_where_its_imports_point() -> None:
    source = "from tests.helpers import a\nfrom .util import b\nimport sanitize\n"
    found = imported_helpers("tests/test_a.py", source)
    assert found[:2] == ["tests/helpers.py", "tests/helpers/__init__.py"]
    assert "tests/util.py" in found and "tests/conftest.py" in found and "conftest.py" in found
    assert not any(path.startswith("sanitize") for path in found)  # source is not a helper


# -- parametrize tables built from literals -----------------------------------------------


def element(source: str, nodeid: str, expected: Any) -> str:
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    found = find_element(tree, func, "expected", nodeid, expected)
    return found if isinstance(found, str) else f"{found.lineno}:{ast.literal_eval(found)}"


TABLE_TEST = (
    '\n@pytest.mark.parametrize("n, expected", CASES)\ndef test_size(n, expected):\n    pass\n'
)


def test_a_row_of_a_concatenated_table_is_found_where_it_is_written() -> None:
    source = 'BASE = [(1, "1 B")]\nCASES = BASE + [(1536, "1.5 KB"), (2, "2 B")]\n' + TABLE_TEST
    assert element(source, "t.py::test_size[1536-1.5 KB]", "1.5 KB") == "2:1.5 KB"
    starred = 'BASE = [(1, "1 B")]\nMORE = [(1536, "1.5 KB")]\nCASES = [*BASE, *MORE]\n'
    assert element(starred + TABLE_TEST, "t.py::test_size[1536-1.5 KB]", "1.5 KB") == "2:1.5 KB"


def test_a_comprehension_passing_literal_rows_through_finds_the_row() -> None:
    source = 'ROWS = [(1, "1 B"), (1536, "1.5 KB")]\nCASES = [(n, e) for n, e in ROWS]\n'
    assert element(source + TABLE_TEST, "t.py::test_size[1536-1.5 KB]", "1.5 KB") == "1:1.5 KB"


def test_rows_a_comprehension_computes_are_refused() -> None:
    source = 'CASES = [(n, f"{n} B") for n in [1, 2]]\n' + TABLE_TEST
    assert "computed by a comprehension" in element(source, "t.py::test_size[n0-e0]", "1 B")
    other = "from tests.cases import CASES\n" + TABLE_TEST
    assert "not a literal list in this file" in element(other, "t.py::test_size[1-a]", "a")


def test_a_class_attribute_table_is_found_in_the_class_body() -> None:
    # The decorator runs in the class's namespace: its own CASES, not the module's.
    source = 'CASES = [(1, "1 B")]\n\n\nclass TestSize:\n    CASES = [(1536, "1.5 KB")]\n'
    source += textwrap.indent(TABLE_TEST.replace("(n, ", "(self, n, "), "    ")
    tree = ast.parse(source)
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    found = find_element(tree, func, "expected", "t.py::TestSize::test_size[1536-1.5 KB]", "1.5 KB")
    assert not isinstance(found, str)
    node = found.node if isinstance(found, Located) else found
    assert (node.lineno, ast.literal_eval(node)) == (5, "1.5 KB")


def test_a_row_of_a_table_imported_from_a_helper_is_found_in_that_file() -> None:
    source = "from tests.cases import CASES\n" + TABLE_TEST
    cases = 'BASE = [(1, "1 B")]\nCASES = BASE + [(1536, "1.5 KB")]\n'
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    tables = {"CASES": ("tests/cases.py", cases)}
    found = find_element(tree, func, "expected", "t.py::test_size[1536-1.5 KB]", "1.5 KB", tables)
    assert isinstance(found, Located) and found.path == "tests/cases.py"
    assert (found.node.lineno, ast.literal_eval(found.node)) == (2, "1.5 KB")
    paths = imported_tables("tests/test_s.py", source)["CASES"]
    assert paths[:2] == ["tests/cases.py", "tests/cases/__init__.py"]


def test_a_raises_block_is_found_past_a_callback_the_test_defines() -> None:
    source = (
        "import pytest\n\n\ndef test_logged():\n"
        "    def log(message):\n        raise LookupError(message)\n\n"
        "    with pytest.raises(KeyError):\n        render(log)\n"
    )
    failure = TestOutcome(
        nodeid="tests/t.py::test_logged", outcome="failed", file="tests/t.py",
        exc_type="LookupError", message="missing", crash_line=6,
        traceback=[{"file": "tests/t.py", "line": 9}, {"file": "render.py", "line": 3},
                   {"file": "tests/t.py", "line": 6, "code": "raise LookupError(message)"}],
    )  # fmt: skip
    text = edited(source, plan_raises(failure, source, "tests/t.py"))
    assert text == source.replace("raises(KeyError)", "raises(LookupError)")


def test_a_method_of_the_same_name_elsewhere_does_not_blur_the_history() -> None:
    failure = unexpected_keyword("tests/t.py", 5, [("tests/t.py", 5)])
    method = "class Cleaner:\n    def clean(self, text):\n        return text\n"
    definitions = {**DEFINITIONS, "clean": [*DEFINITIONS["clean"], ("sanitize/core.py", method)]}
    before = history({"sanitize/__init__.py": CLEAN_THEN + "    ...\n", "sanitize/core.py": method})
    plan = plan_kwarg(failure, CLEAN_TESTS, "tests/t.py", definitions, before)
    assert edited(CLEAN_TESTS, plan) == CLEAN_TESTS.replace(
        "strip=True", "strip_disallowed_tags=True"
    )


def deep(source: str) -> TestOutcome:
    """A failure whose traceback kept only library frames (a deep stack cut the test's)."""
    frames = [{"file": "/venv/lib/tpl/env.py", "line": n, "code": "x()"} for n in range(5)]
    frames.append({"file": "/venv/lib/tpl/env.py", "line": 9, "code": "raise NameMissing(n)"})
    return TestOutcome(
        nodeid="tests/t.py::test_undefined", outcome="failed", file="tests/t.py", line=4,
        crash_line=4, exc_type="NameMissing", message="'x' is undefined", traceback=frames,
    )  # fmt: skip


def test_the_only_raises_block_of_a_test_whose_frames_were_cut_is_retyped() -> None:
    source = "import pytest\n\n\ndef test_undefined():\n    t = make()\n"
    source += "    with pytest.raises(LookupError):\n        render(t)\n"
    index = ModuleIndex({"tpl.errors": "class NameMissing(LookupError): ..."})
    text = edited(source, plan_raises(deep(source), source, "tests/t.py", index))
    assert "with pytest.raises(NameMissing):" in text
    assert "from tpl.errors import NameMissing" in text
    two = source + "    with pytest.raises(LookupError):\n        render(t, t)\n"
    refusal(plan_raises(deep(two), two, "tests/t.py", index), "not raised inside")


def test_the_git_history_is_head_or_the_last_commit_whose_version_differs(tmp_path: Path) -> None:
    repo = commit_all(write_tree(tmp_path / "repo", {"pkg/a.py": "v1\n", "pkg/b.py": "b\n"}))
    before = GitHistory(repo)
    assert before("pkg/a.py", "v2\n") == "v1\n"  # the change is in the work tree only
    write_tree(repo, {"pkg/a.py": "v2\n", "pkg/new.py": "n\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the change")
    assert GitHistory(repo)("pkg/a.py", "v2\n") == "v1\n"  # committed: one commit back
    assert GitHistory(repo)("pkg/b.py", "b\n") is None  # never changed
    assert GitHistory(repo)("pkg/new.py", "n\n") is None  # new: nothing to compare
    assert GitHistory(tmp_path / "repo" / "pkg")("a.py", "v2\n") == "v1\n"  # a subfolder
    assert GitHistory(tmp_path)("pkg/a.py", "v2\n") is None  # not a git repository
