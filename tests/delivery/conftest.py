"""One real `coder gen` and one real `coder fix` run with `--html`, shared by the page
tests (each run takes tens of seconds)."""

from __future__ import annotations

import pytest

from tests.delivery.pages import HOSTILE, SECRET, Run, run_coder
from tests.helpers import commit_all, copy_fixture

# Lines that no test runs (the print), and a branch never taken (the `if`), holding a
# hostile comment; and a secret the environment also holds.
MAIN_BLOCK = f"""

# service token: {SECRET}
if __name__ == "__main__":  # {HOSTILE}
    print(price_label(1205))
"""


@pytest.fixture(scope="session")
def gen_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """`coder gen --html` on fixtures/gen_pure with MAIN_BLOCK at the end of its module."""
    root = tmp_path_factory.mktemp("gen-html")
    repo = copy_fixture("gen_pure", root)
    with (repo / "shop" / "pricing.py").open("a", encoding="utf-8") as module:
        module.write(MAIN_BLOCK)
    return run_coder("gen", commit_all(repo), root / "pages" / "gen.html", root / "home")


@pytest.fixture(scope="session")
def fix_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """`coder fix --html` on fixtures/fix_expected_value, the hostile text and the secret
    in comments on the lines its patch changes and shows."""
    root = tmp_path_factory.mktemp("fix-html")
    repo = copy_fixture("fix_expected_value", root)
    tests = repo / "tests" / "test_format.py"
    text = tests.read_text(encoding="utf-8")
    text = text.replace('(1536, "1.5 KB"),', f'(1536, "1.5 KB"),  # {HOSTILE}')
    text = text.replace('(1023, "1023 B"),', f'(1023, "1023 B"),  # token {SECRET}')
    tests.write_text(text, encoding="utf-8")
    return run_coder("fix", commit_all(repo), root / "pages" / "fix.html", root / "home")
