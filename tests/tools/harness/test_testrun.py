"""run_pytest and its plugin on real projects in a LocalSandbox, and render_test_run."""

from __future__ import annotations

from pathlib import Path

from sandbox import LocalSandbox
from tests.helpers import write_tree
from tools import TestOutcome, TestRun, render_test_run, run_pytest


def make_project(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {"pytest.ini": "[pytest]\n", **files})


def failure(run: TestRun, nodeid: str) -> TestOutcome:
    return next(test for test in run.failures if test.nodeid == nodeid)


def test_counts_and_comparison_operands(sample_sandbox: LocalSandbox) -> None:
    run = run_pytest(sample_sandbox, None, timeout=60)
    assert (run.passed, run.failed, run.errors, run.exit_code) == (1, 2, 1, 1)
    assert run.report_found and not run.timed_out
    add = failure(run, "tests/test_calc.py::test_add")
    assert (add.file, add.line, add.crash_line) == ("tests/test_calc.py", 4, 5)
    assert add.exc_type == "AssertionError" and add.message.startswith("assert 4 == 5")
    assert add.comparison is not None
    assert (add.comparison.op, add.comparison.left, add.comparison.right) == ("==", "4", "5")
    assert add.traceback[-1].code == "assert add(2, 2) == 5"
    settings = failure(run, "tests/test_settings.py::test_settings")
    assert settings.comparison is not None
    assert settings.comparison.left == "{'debug': False, 'level': 2}"
    assert settings.comparison.right == "{'debug': True, 'level': 2}"


def test_collection_error_is_an_entry(sample_sandbox: LocalSandbox) -> None:
    run = run_pytest(sample_sandbox, None, timeout=60)
    broken = failure(run, "tests/test_broken.py")
    assert (broken.outcome, broken.exc_type, broken.line) == ("error", "SyntaxError", 1)
    assert "def broken(:" in broken.message


def test_selecting_a_node_id(sample_sandbox: LocalSandbox) -> None:
    run = run_pytest(sample_sandbox, ["tests/test_calc.py::test_add"], timeout=60)
    assert run.outcomes == {"tests/test_calc.py::test_add": "failed"}
    assert (run.passed, run.failed, run.errors) == (0, 1, 0)


def test_a_plugin_removed_by_a_command_is_put_back(sample_sandbox: LocalSandbox) -> None:
    first = run_pytest(sample_sandbox, None, timeout=60)
    sample_sandbox.exec("rm -rf .coder/pytest_plugin")
    again = run_pytest(sample_sandbox, None, timeout=60)
    assert first.report_found and again.report_found
    assert (again.passed, again.failed) == (first.passed, first.failed)


def test_render_for_the_model(sample_sandbox: LocalSandbox) -> None:
    text = render_test_run(run_pytest(sample_sandbox, None, timeout=60))
    assert text.splitlines()[0].startswith("1 passed, 2 failed, 1 error in ")
    block = text.split("FAILED tests/test_settings.py::test_settings")[1]
    assert "  AssertionError: assert {'debug': False, 'level': 2} == {" in block
    assert "  assert left == right\n    left = {'debug': False, 'level': 2}\n" in block
    assert "    right = {'debug': True, 'level': 2}\n" in block
    assert "tests/test_settings.py:5 in test_settings" in block
    assert "ERROR tests/test_broken.py (tests/test_broken.py:1)" in text


MISC_TESTS = """
import pytest

@pytest.fixture
def boom():
    raise RuntimeError('no database')

def test_setup(boom):
    pass

@pytest.mark.skip(reason='later')
def test_skip():
    pass

@pytest.mark.xfail
def test_xfail():
    assert 1 == 2

@pytest.mark.xfail
def test_xpass():
    pass

def test_raises():
    {}['missing']
"""


def test_other_outcomes_and_setup_errors(tmp_path: Path) -> None:
    with LocalSandbox(make_project(tmp_path, {"tests/test_misc.py": MISC_TESTS})) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    prefix = "tests/test_misc.py::"
    assert {k.removeprefix(prefix): v for k, v in run.outcomes.items()} == {
        "test_setup": "error",
        "test_skip": "skipped",
        "test_xfail": "xfailed",
        "test_xpass": "xpassed",
        "test_raises": "failed",
    }
    setup = failure(run, prefix + "test_setup")
    assert (setup.exc_type, setup.message) == ("RuntimeError", "no database")
    raised = failure(run, prefix + "test_raises")
    assert raised.exc_type == "KeyError" and raised.comparison is None


LEAK_TESTS = """
import pytest

def test_first():
    with pytest.raises(AssertionError):
        assert 1 == 2

def test_second():
    assert False, 'plain failure'
"""


def test_comparison_stash_does_not_leak_between_tests(tmp_path: Path) -> None:
    with LocalSandbox(make_project(tmp_path, {"tests/test_leak.py": LEAK_TESTS})) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    assert run.failures[0].nodeid.endswith("test_second") and run.failures[0].comparison is None


SLOW_TESTS = """
import time

def test_fast():
    pass

def test_hang():
    time.sleep(60)
"""


def test_timeout_names_the_running_test(tmp_path: Path) -> None:
    with LocalSandbox(make_project(tmp_path, {"tests/test_slow.py": SLOW_TESTS})) as sandbox:
        run = run_pytest(sandbox, None, timeout=3)
    assert run.timed_out and not run.report_found
    assert run.running == "tests/test_slow.py::test_hang"
    assert failure(run, "tests/test_slow.py::test_hang").exc_type == "Timeout"
    assert "timed out after 3s while running tests/test_slow.py::test_hang" in render_test_run(run)


def test_broken_conftest_falls_back_to_output(tmp_path: Path) -> None:
    files = {
        "tests/conftest.py": "import no_such_module\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
    }
    with LocalSandbox(make_project(tmp_path, files)) as sandbox:
        sandbox.write(".coder/pytest_report.json", b'{"exit_code": 0, "tests": []}')
        run = run_pytest(sandbox, None, timeout=60)
    assert not run.report_found and run.exit_code == 4
    text = render_test_run(run)
    assert "pytest exited with code 4 (usage error" in text
    assert "no_such_module" in text


def test_no_tests_collected(tmp_path: Path) -> None:
    with LocalSandbox(make_project(tmp_path, {"tests/test_none.py": "X = 1\n"})) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    assert run.exit_code == 5 and "No tests were collected" in render_test_run(run)


def test_a_repeated_test_keeps_a_failure_from_any_of_its_runs(tmp_path: Path) -> None:
    # The counter lives in the workspace: the sandbox cannot write anywhere else.
    (tmp_path / "repo" / "tests").mkdir(parents=True)
    (tmp_path / "repo" / "tests" / "test_f.py").write_text(
        "import os\n\n\ndef test_second_run_fails():\n"
        "    path = 'count'\n"
        "    n = int(open(path).read()) if os.path.exists(path) else 0\n"
        "    open(path, 'w').write(str(n + 1))\n"
        "    assert n != 1\n"
    )
    with LocalSandbox(tmp_path / "repo") as sandbox:
        run = run_pytest(sandbox, ["tests/test_f.py"] * 3 + ["--keep-duplicates"], timeout=60)
        counted = sandbox.read("count")
    assert counted == b"3"  # ran three times in one process
    assert run.outcomes == {"tests/test_f.py::test_second_run_fails": "failed"}


UNITTEST_TESTS = """
import unittest

class T(unittest.TestCase):
    def test_raises_another(self):
        with self.assertRaises(ValueError):
            raise OverflowError("too big")

    def test_equal(self):
        self.assertEqual(1, 2)
"""


def test_unittest_failures_keep_their_exception(tmp_path: Path) -> None:
    # pytest's unittest plugin hands the exception over in its own makereport hook.
    with LocalSandbox(make_project(tmp_path, {"tests/test_u.py": UNITTEST_TESTS})) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    found = {f.nodeid.rsplit("::", 1)[1]: (f.exc_type, f.message) for f in run.failures}
    assert found == {
        "test_raises_another": ("OverflowError", "too big"),
        "test_equal": ("AssertionError", "1 != 2"),
    }


HOOK_CONFTEST = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield

def pytest_collection_modifyitems(items):
    pass

def pytest_configure(config):
    pass
"""


def test_outcome_hooks_name_the_conftest_hooks(tmp_path: Path) -> None:
    files = {"conftest.py": HOOK_CONFTEST, "tests/test_a.py": "def test_a():\n    pass\n"}
    with LocalSandbox(make_project(tmp_path, files)) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    # Installed plugins (hypothesis here) are listed by module name.
    assert [hook for hook in run.outcome_hooks if ".py:" in hook] == [
        "conftest.py:pytest_collection_modifyitems",
        "conftest.py:pytest_runtest_makereport",
    ]
    assert run.outcome_hooks == sorted(set(run.outcome_hooks))
    assert run.collected == 1 and "python" in run.interpreter


def test_a_plain_project_has_no_outcome_hooks_of_its_own(sample_sandbox: LocalSandbox) -> None:
    hooks = run_pytest(sample_sandbox, None, timeout=60).outcome_hooks
    assert not [hook for hook in hooks if ".py:" in hook or hook.startswith(("coder", "_pytest."))]


def test_repeated_runs_count_runs_and_passes(tmp_path: Path) -> None:
    (tmp_path / "repo" / "tests").mkdir(parents=True)
    (tmp_path / "repo" / "tests" / "test_f.py").write_text(
        "import os\n\n\ndef test_odd_runs_fail():\n"
        "    n = int(open('count').read()) if os.path.exists('count') else 0\n"
        "    open('count', 'w').write(str(n + 1))\n"
        "    assert n % 2 == 1\n\n\ndef test_ok():\n    pass\n"
    )
    with LocalSandbox(tmp_path / "repo") as sandbox:
        run = run_pytest(sandbox, ["tests/test_f.py"] * 5 + ["--keep-duplicates"], timeout=60)
        alone = run_pytest(sandbox, ["tests/test_f.py::test_odd_runs_fail"], timeout=60, repeat=4)
    odd = failure(run, "tests/test_f.py::test_odd_runs_fail")
    assert (odd.outcome, odd.runs, odd.passes) == ("failed", 5, 2)
    assert run.outcomes["tests/test_f.py::test_ok"] == "passed"
    # A node id repeated: pytest would run it once; the plugin keeps it alone, 4 times.
    assert list(alone.outcomes) == ["tests/test_f.py::test_odd_runs_fail"]
    again = failure(alone, "tests/test_f.py::test_odd_runs_fail")
    assert (again.runs, again.passes, alone.collected) == (4, 2, 4)


def test_repeated_rounds_set_each_test_up_anew(tmp_path: Path) -> None:
    # Each round runs the items collected once again: the module is imported once, and
    # fixtures and unittest cases are set up anew for every run.
    make_project(
        tmp_path,
        {
            "tests/test_f.py": "import unittest\n\nimport pytest\n\n"
            "open('imports', 'a').write('x')\n\n\n"
            "@pytest.fixture\ndef fresh():\n    return []\n\n\n"
            "def test_fixture(fresh):\n    fresh.append(1)\n    assert fresh == [1]\n\n\n"
            "class TestCase(unittest.TestCase):\n    def setUp(self):\n        self.n = 0\n\n"
            "    def test_case(self):\n        self.n += 1\n        assert self.n == 1\n\n\n"
            "def test_counted():\n    assert False\n",
        },
    )
    with LocalSandbox(tmp_path) as sandbox:
        run = run_pytest(sandbox, ["tests/test_f.py"], 60, repeat=4)
        imports = sandbox.read("imports")
    assert imports == b"x" and run.collected == 12
    # A test that failed once stays failed: these passed in each of the 4 rounds.
    assert run.outcomes["tests/test_f.py::test_fixture"] == "passed"
    assert run.outcomes["tests/test_f.py::TestCase::test_case"] == "passed"
    counted = failure(run, "tests/test_f.py::test_counted")
    assert (counted.runs, counted.passes) == (4, 0)


def test_again_repeats_only_the_named_tests_and_brief_keeps_the_report(tmp_path: Path) -> None:
    make_project(
        tmp_path,
        {
            "tests/test_f.py": "import pytest\n\n\ndef test_ok():\n    pass\n\n\n"
            "@pytest.mark.parametrize('n', [1, 2])\ndef test_bad(n):\n    assert n == 0\n",
        },
    )
    with LocalSandbox(tmp_path) as sandbox:
        run = run_pytest(
            sandbox,
            ["tests/test_f.py"],
            60,
            repeat=3,
            again=["tests/test_f.py::test_bad"],
            brief=True,
        )
    # The file runs once; the function named in `again` (both parameter sets) 3 times.
    assert run.collected == 1 + 2 * 3
    assert run.outcomes["tests/test_f.py::test_ok"] == "passed"
    bad = failure(run, "tests/test_f.py::test_bad[2]")
    assert (bad.runs, bad.passes, bad.exc_type) == (3, 0, "AssertionError")
    # brief: pytest prints no traceback, the report still has the failure's own.
    assert "def test_bad" not in run.output_tail and bad.message.startswith("assert 2 == 0")


def test_again_without_tests_runs_the_whole_suite_once_and_only_again_in_the_rounds(
    tmp_path: Path,
) -> None:
    make_project(
        tmp_path,
        {
            "tests/test_f.py": "def test_ok():\n    pass\n\n\ndef test_bad():\n    assert 0\n",
            "tests/test_g.py": "def test_other():\n    pass\n",
        },
    )
    with LocalSandbox(tmp_path) as sandbox:
        run = run_pytest(sandbox, None, 60, repeat=3, again=["tests/test_f.py::test_bad"])
    assert run.collected == 2 + 3  # every test once, test_bad in each of the 3 rounds
    assert run.outcomes == {
        "tests/test_f.py::test_ok": "passed",
        "tests/test_f.py::test_bad": "failed",
        "tests/test_g.py::test_other": "passed",
    }
    assert (run.passed, run.failed) == (2, 1)
    assert failure(run, "tests/test_f.py::test_bad").runs == 3


def test_a_deep_failure_keeps_the_tests_own_frame(tmp_path: Path) -> None:
    chain = "".join(f"def f{i}():\n    return f{i + 1}()\n\n\n" for i in range(9))
    make_project(
        tmp_path,
        {
            "deep.py": chain + "def f9():\n    raise ValueError('deep')\n",
            "tests/test_deep.py": "from deep import f0\n\n\ndef test_deep():\n    f0()\n",
        },
    )
    with LocalSandbox(tmp_path) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    deep = failure(run, "tests/test_deep.py::test_deep")
    frames = [(frame.file, frame.function) for frame in deep.traceback]
    # Where the test called in, then where it broke: the test's line is its crash line.
    assert frames[0] == ("tests/test_deep.py", "test_deep") and frames[-1] == ("deep.py", "f9")
    assert len(frames) == 6 and deep.crash_line == 5


TRACED_SOURCE = "def twice(n):\n    if n < 0:\n        return 0\n    return n * 2\n"
TRACED_TESTS = (
    "from calc import twice\n\n\n"
    "def test_twice():\n    assert twice(2) == 4\n\n\n"
    "def test_negative():\n    assert twice(-1) == 0\n"
)


def test_a_repeated_run_traces_the_lines_of_the_tests_it_names(tmp_path: Path) -> None:
    files = {"calc.py": TRACED_SOURCE, "tests/test_calc.py": TRACED_TESTS}
    with LocalSandbox(make_project(tmp_path, files)) as sandbox:
        again = ["tests/test_calc.py::test_twice", "tests/test_calc.py::test_negative"]
        traced = run_pytest(sandbox, None, 60, repeat=3, again=again, trace=again[:1])
        plain = run_pytest(sandbox, None, 60, repeat=3, again=again)
    # The source's lines only (not the test's), of the named test only.
    assert traced.lines == {"tests/test_calc.py::test_twice": {"calc.py": [2, 4]}}
    assert traced.ok and plain.lines == {}
