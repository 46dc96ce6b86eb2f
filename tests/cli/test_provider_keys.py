"""A preset's own key variable, as the user meets it: `coder doctor` sees it, and a
missing key is one line naming both variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import fixture_repo


@pytest.fixture
def calc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LLM_API_KEY", "LLM_BASE_URL", "ARK_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return fixture_repo("calc", tmp_path)


@pytest.mark.parametrize("key", [None, "ark-live-0123456789"])
def test_doctor_sees_the_providers_own_key(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str | None
) -> None:
    monkeypatch.setenv("LLM_MODEL", "doubao:doubao-seed-1-6-250615")
    if key:
        monkeypatch.setenv("ARK_API_KEY", key)

    main(["doctor", "--repo", str(calc)])

    out = " ".join(capsys.readouterr().out.split())
    assert "doubao:doubao-seed-1-6-250615" in out
    assert ("key set" if key else "no key") in out
    assert "0123456789" not in out


def test_a_missing_key_names_both_variables(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANOTHER_API_KEY", "not-for-openrouter-123")  # never borrowed

    code = main(["run", "say hi", "--repo", str(calc), "--model", "openrouter:qwen/qwen3-coder"])

    err = capsys.readouterr().err
    assert code == 2
    assert "set LLM_API_KEY or OPENROUTER_API_KEY" in " ".join(err.split())
    assert "Traceback" not in err
