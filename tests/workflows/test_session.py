"""The session's model choice: the configured model, or each command's offline engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.builtin.gen import BuiltinGenModel
from coder.builtin.repair import BuiltinRepairModel
from coder.config import ConfigError, load_settings
from coder.models import Model, ModelSpecError, ScriptedModel, make_model
from coder.workflows.session import BUILTIN_NOTES, Command, choose_model


def choose(tmp_path: Path, command: Command, model: str | None) -> tuple[Model, list[str]]:
    said: list[str] = []
    settings = load_settings(tmp_path, {"model": model}, environ={})
    return choose_model(command, settings, said.append), said


@pytest.mark.parametrize("command", ["run", "fix"])
def test_the_builtin_spec_is_the_repair_engine_for_run_and_fix(
    tmp_path: Path, command: Command
) -> None:
    model, said = choose(tmp_path, command, "builtin")
    assert isinstance(model, BuiltinRepairModel) and model.name == "builtin"
    assert said == []  # asked for by name: nothing to explain


def test_the_builtin_spec_is_the_test_generator_for_gen(tmp_path: Path) -> None:
    model, said = choose(tmp_path, "gen", " builtin ")
    assert isinstance(model, BuiltinGenModel) and said == []


@pytest.mark.parametrize(
    ("command", "engine"), [("fix", BuiltinRepairModel), ("gen", BuiltinGenModel)]
)
def test_with_no_model_fix_and_gen_say_which_engine_runs(
    tmp_path: Path, command: Command, engine: type
) -> None:
    model, said = choose(tmp_path, command, None)
    assert isinstance(model, engine)
    assert said == [BUILTIN_NOTES[command]]
    assert "builtin" in said[0] and "--model" in said[0]


def test_run_with_no_model_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--model"):
        choose(tmp_path, "run", None)


def test_a_configured_model_is_made_from_its_spec(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"text": "done"}]', encoding="utf-8")
    model, said = choose(tmp_path, "gen", f"scripted:{script}")
    assert isinstance(model, ScriptedModel) and said == []


def test_make_model_leaves_the_builtin_engine_to_the_session() -> None:
    with pytest.raises(ModelSpecError, match="choose_model"):
        make_model("builtin")


def test_ollama_says_once_how_to_give_the_server_coders_context(tmp_path: Path) -> None:
    said: list[str] = []
    settings = load_settings(tmp_path, {"model": "ollama:qwen2.5-coder"}, environ={})

    model = choose_model("run", settings, said.append)

    assert model.name == "ollama:qwen2.5-coder"
    assert len(said) == 1 and f"OLLAMA_CONTEXT_LENGTH={settings.context_tokens}" in said[0]
    other = load_settings(
        tmp_path, {"model": "compat:qwen", "base_url": "http://127.0.0.1:8080/v1"}, environ={}
    )
    choose_model("run", other, said.append)
    assert len(said) == 1  # other servers: nothing to say
