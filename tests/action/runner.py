"""Runs action.yml's steps as the GitHub runner runs a composite action's steps.

Each `run:` step goes to `bash --noprofile --norc -eo pipefail FILE` (the runner's
`shell: bash`) in the workspace, with the step's `env:` expressions evaluated
(`inputs.X`, `steps.ID.outputs.X`, `github.action_path`), GITHUB_OUTPUT a fresh file per
step and GITHUB_STEP_SUMMARY one file for the job. A `uses:` step runs only if its `if:`
holds; the tests never need one (it would fetch an action from the network). An expression
this emulation does not know fails the test, so action.yml cannot grow one untested.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_NOT_EMPTY = re.compile(r"inputs\.([\w-]+) != ''")


def load_action() -> dict[str, Any]:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(action, dict)
    return action


@dataclass
class ActionRun:
    """What a workflow sees after the action: its exit code, outputs, summary and log."""

    exit_code: int
    outputs: dict[str, str]
    summary: str
    log: str
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)
    """Ids of the steps that ran, in order."""


def run_action(workspace: Path, temp: Path, inputs: dict[str, str]) -> ActionRun:
    """The action with `inputs` (the workflow's `with:`) on `workspace`."""
    action = load_action()
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"action.yml has no input {unknown}"
    values.update(inputs)
    missing = [n for n, s in action["inputs"].items() if s.get("required") and not values[n]]
    assert not missing, f"required inputs missing: {missing}"
    steps: dict[str, dict[str, str]] = {}
    summary = temp / "step_summary.md"
    summary.touch()
    log, ran, exit_code = [], [], 0
    for number, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{number}")
        if "uses" in step:
            assert not _holds(step.get("if", "true"), values), f"{step_id} would fetch an action"
            continue
        env = _base_env(workspace, temp, summary)
        env["GITHUB_OUTPUT"] = str(temp / f"output_{step_id}")
        Path(env["GITHUB_OUTPUT"]).touch()
        for name, expression in (step.get("env") or {}).items():
            env[name] = _evaluate(str(expression), values, steps)
        done = _bash(step, env, workspace, temp / f"script_{step_id}.sh")
        ran.append(step_id)
        log.append(done.stdout + done.stderr)
        steps[step_id] = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))
        if done.returncode != 0:  # the runner skips the steps after a failed one
            exit_code = done.returncode
            break
    outputs = {
        name: _evaluate(str(spec["value"]), values, steps)
        for name, spec in action["outputs"].items()
    }
    text = summary.read_text(encoding="utf-8")
    return ActionRun(exit_code, outputs, text, "".join(log), steps, ran)


def _bash(
    step: dict[str, Any], env: dict[str, str], workspace: Path, script: Path
) -> subprocess.CompletedProcess[str]:
    assert step.get("shell") == "bash", "a composite run step names its shell"
    assert "${{" not in step["run"], "an expression inside a script is a shell injection"
    script.write_text(step["run"], encoding="utf-8")
    command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
    return subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True)


def _base_env(workspace: Path, temp: Path, summary: Path) -> dict[str, str]:
    """The job's environment: this interpreter's python3 first on PATH (it has coder's
    dependencies, and this checkout of coder through PYTHONPATH, so `Install coder`
    finds it installed), and the runner's variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    runner_temp = temp / "runner_temp"
    runner_temp.mkdir(exist_ok=True)
    env.update(
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_ENV=str(temp / "github_env"),
        GITHUB_STEP_SUMMARY=str(summary),
        RUNNER_TEMP=str(runner_temp),
    )
    return env


def _evaluate(text: str, values: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression == "github.action_path":
            return str(ROOT)
        if expression.startswith("inputs."):
            return values[expression.removeprefix("inputs.")]
        parts = expression.split(".")
        if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
            return steps.get(parts[1], {}).get(parts[3], "")
        raise AssertionError(f"the runner emulation does not know ${{{{ {expression} }}}}")

    return _EXPRESSION.sub(value, text)


def _holds(condition: str, values: dict[str, str]) -> bool:
    match = _NOT_EMPTY.fullmatch(condition.strip())
    assert match, f"the runner emulation does not know the condition {condition!r}"
    return values[match.group(1)] != ""


def parse_outputs(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            else:
                raise AssertionError(f"output {name} has no closing {delimiter}")
            outputs[name] = "\n".join(block)
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs
