"""The builtin engine on the shapes real suites have, through `coder fix` on small
repositories: messages inside membership assertions, expected values built from
expressions, and repairs that keep the project's line length. Each repair is
verified as the workflow verifies a model's (a mutant of the code must fail it)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import commit_all, write_tree

pytestmark = pytest.mark.timeout(600)

PYTEST = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'

FORMS = (
    "def validate(data):\n"
    "    errors = {}\n"
    "    if not data.get('name'):\n"
    "        errors['name'] = ['Field is required.']\n"
    "    if 'age' in data and not isinstance(data['age'], int):\n"
    "        errors['age'] = ['Not a valid number.']\n"
    "    return errors\n\n\n"
    "def load(data):\n"
    "    if validate(data):\n"
    "        raise ValueError('Field is required.')\n"
    "    return data\n"
)
FORMS_TESTS = (
    "import unittest\n\nimport pytest\n\nfrom forms import load, validate\n\n\n"
    "def test_name_is_required():\n"
    "    assert 'Missing data for required field.' in validate({})['name']\n\n\n"
    "def test_loading_without_a_name_fails():\n"
    "    with pytest.raises(ValueError, match='Missing data for required field'):\n"
    "        load({})\n\n\n"
    "def test_an_empty_name_is_a_name():\n"
    "    assert 'Field is required.' not in validate({'name': ''}).get('name', [])\n\n\n"
    "class AgeTest(unittest.TestCase):\n"
    "    def test_age_must_be_a_number(self):\n"
    "        errors = validate({'name': 'Ann', 'age': 'x'})\n"
    "        self.assertIn('Not a valid integer.', errors['age'])\n"
)

PATHS = (
    "def output_name(stem):\n    return 'out/' + stem + '.csv'\n\n\n"
    "def greet(name):\n    return f'<p>Hello, {name}!</p>'\n"
)
PATHS_TESTS = (
    "from paths import greet, output_name\n\n\n"
    "def test_output_name():\n    stem = 'report'\n"
    "    assert output_name(stem) == 'out/' + stem + '.txt'\n\n\n"
    "def test_greet():\n    name = 'Ann'\n    assert greet(name) == f'<p>Hi, {name}!</p>'\n"
)

UPLOAD = (
    "def message():\n"
    "    return (\n"
    "        'The upload failed because the file was larger '\n"
    "        'than the 10 MB the server allows.'\n"
    "    )\n\n\n"
    "def short():\n"
    "    return 'The upload worked, and the file is now on its way to the server.'\n"
)
UPLOAD_TESTS = (
    "from upload import message, short\n\n\n"
    "def test_message():\n"
    "    assert message() == (\n"
    "        'The upload failed because the file '\n"
    "        'was too large.'\n"
    "    )\n\n\n"
    "def test_short():\n"
    "    assert short() == 'ok'\n"
)


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "CODER_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _fix(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> Any:
    repo = write_tree(tmp_path / "repo", {"pyproject.toml": PYTEST, **files})
    commit_all(repo)
    code = main(["fix", str(repo), "--sandbox", "local", "--json"])
    report = json.loads(capsys.readouterr().out)
    return repo, code, report, {t["nodeid"].split("::")[-1]: t for t in report["tests"]}


def test_a_changed_message_inside_membership_assertions_is_repaired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"forms/__init__.py": FORMS, "tests/test_forms.py": FORMS_TESTS}
    repo, code, report, tests = _fix(tmp_path, capsys, files)

    assert code == 1 and report["status"] == "partial", report
    assert {name: test["status"] for name, test in tests.items()} == {
        "test_name_is_required": "repaired",
        "test_age_must_be_a_number": "repaired",
        "test_loading_without_a_name_fails": "repaired",
        "test_an_empty_name_is_a_name": "unfixed",
    }
    assert (repo / "tests/test_forms.py").read_text() == FORMS_TESTS.replace(
        "'Missing data for required field.'", "'Field is required.'"
    ).replace("'Not a valid integer.'", "'Not a valid number.'").replace(
        "match='Missing data for required field'", r"match=r'Field is required\.'"
    )
    assert "`not in` failed" in tests["test_an_empty_name_is_a_name"]["reason"]
    assert "the only element there now" in tests["test_name_is_required"]["reason"]


def test_expressions_keep_their_structure_and_repairs_the_projects_line_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "ruff.toml": "line-length = 60\n",
        "paths/__init__.py": PATHS,
        "tests/test_paths.py": PATHS_TESTS,
        "upload.py": UPLOAD,
        "tests/test_upload.py": UPLOAD_TESTS,
    }
    repo, code, report, tests = _fix(tmp_path, capsys, files)

    assert code == 0 and report["status"] == "fixed", report
    assert len(tests) == 4 and {test["status"] for test in tests.values()} == {"repaired"}
    assert (repo / "tests/test_paths.py").read_text() == PATHS_TESTS.replace(
        "'.txt'", "'.csv'"
    ).replace("<p>Hi,", "<p>Hello,")
    text = (repo / "tests/test_upload.py").read_text()
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "        'The upload failed because the file '\n" in text  # the piece kept
    assert "    assert short() == (\n" in text  # a new long literal is wrapped
    compares = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Compare)]
    namespace: dict[str, Any] = {}
    exec(UPLOAD, namespace)  # noqa: S102 - the test's own fixture code
    assert [ast.literal_eval(node.comparators[0]) for node in compares] == [
        namespace["message"](),
        namespace["short"](),
    ]
