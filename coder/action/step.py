"""The Action's step: run `coder fix|gen --json` as a child process, keep its report, patch
and JUnit file where later steps can upload them, then write the step's outputs and the
job summary.

What the child prints passes to the log between `::stop-commands::` markers, so test
output from the repository cannot issue workflow commands; and the child gets no path to
the runner's command files (GITHUB_ENV, GITHUB_OUTPUT, ...), so the tests it runs cannot
change the environment of the job's later steps through them.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coder.action.image import build_image, image_to_build
from coder.action.inputs import ActionInputs, InputError, read_inputs
from coder.action.summary import Report, render_summary
from coder.delivery.runs import RUNS_DIR
from coder.redaction import Redactor

RUNNER_FILES = ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
"""The runner's command files: the Action writes them, coder and the tests never see them."""
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Outcome:
    """How the child ended: its exit code, its report (None if it printed none) and the
    last line it wrote to stderr (the reason, when there is no report)."""

    exit_code: int
    report: Report | None
    last_words: str


def main(environ: Mapping[str, str] = os.environ) -> int:
    """Run the step; the exit code is the step's (see `step_exit`)."""
    redact = Redactor.from_environment(environ.get("INPUT_API_KEY"), environ=environ)
    try:
        inputs = read_inputs(environ)
    except InputError as error:
        return _refuse(environ, str(redact(str(error))))
    folder = _folder(environ, inputs.command)
    image = image_to_build(inputs)
    if image is not None:  # if the build fails, coder's run says the image is missing
        build_image(image, child_environment(inputs, environ))
    outcome = run_coder(inputs, folder, environ)
    files = keep_files(outcome.report, Path(inputs.path), folder)
    outputs = {
        "status": status_of(outcome),
        "exit-code": str(outcome.exit_code),
        "run-id": str((outcome.report or {}).get("run_id", "")),
        "folder": str(folder),
        **files,
    }
    _append(environ, "GITHUB_OUTPUT", format_outputs(outputs))
    problem = str(redact(outcome.last_words))
    _append(environ, "GITHUB_STEP_SUMMARY", render_summary(inputs.command, outcome.report, problem))
    print(
        f"coder {inputs.command}: {outputs['status']} (exit {outcome.exit_code}); "
        f"files in {folder}",
        flush=True,
    )
    if outcome.report is None:
        print(_command("error", f"coder {inputs.command} stopped: {problem}"), flush=True)
    return step_exit(inputs, outcome.exit_code)


def run_coder(inputs: ActionInputs, folder: Path, environ: Mapping[str, str]) -> Outcome:
    """`coder` with the inputs' arguments; its stderr streamed to the log as it comes."""
    stdout_file = folder / "stdout.json"
    command = [sys.executable, "-P", "-m", "coder", *inputs.argv(folder / "junit.xml")]
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", flush=True)
    tail: deque[str] = deque(maxlen=5)
    try:
        with stdout_file.open("wb") as stdout:
            child = subprocess.Popen(
                command,
                stdout=stdout,
                stderr=subprocess.PIPE,
                env=child_environment(inputs, environ),
                text=True,
                errors="replace",
            )
            assert child.stderr is not None
            for line in child.stderr:
                sys.stderr.write(line)
                if line.strip():
                    tail.append(line.strip())
            exit_code = child.wait()
    finally:
        sys.stderr.flush()
        print(f"::{token}::", flush=True)
    report = _parse(stdout_file.read_text(encoding="utf-8", errors="replace"))
    stdout_file.unlink()
    return Outcome(exit_code, report, tail[-1] if tail else f"exit code {exit_code}")


def child_environment(inputs: ActionInputs, environ: Mapping[str, str]) -> dict[str, str]:
    """The step's environment without the inputs and the runner's command files; the
    `api-key` input, if given, as LLM_API_KEY."""
    env = {
        name: value
        for name, value in environ.items()
        if not name.startswith("INPUT_") and name not in RUNNER_FILES
    }
    if inputs.api_key:
        env["LLM_API_KEY"] = inputs.api_key
    return env


def _parse(text: str) -> Report | None:
    try:
        report = json.loads(text)
    except ValueError:
        return None
    return report if isinstance(report, dict) and "status" in report else None


def keep_files(report: Report | None, repo: Path, folder: Path) -> dict[str, str]:
    """The report, patch and JUnit file in `folder` (outside the hidden `.coder/`, which
    upload-artifact skips), as outputs: name -> path, "" for a file there is none of."""
    files = {"report": "", "patch": "", "junit": ""}
    junit = folder / "junit.xml"
    if junit.is_file():
        files["junit"] = str(junit)
    if report is None:
        return files
    (folder / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    files["report"] = str(folder / "report.json")
    patch = _patch_bytes(report, repo)
    if patch:
        (folder / "patch.diff").write_bytes(patch)
        files["patch"] = str(folder / "patch.diff")
    return files


def _patch_bytes(report: Report, repo: Path) -> bytes:
    """The run folder's patch.diff as written, else the report's `patch` text."""
    run_id = str(report.get("run_id", ""))
    if _RUN_ID.fullmatch(run_id):
        kept = repo / RUNS_DIR / run_id / "patch.diff"
        if kept.is_file() and not kept.is_symlink():
            return kept.read_bytes()
    return str(report.get("patch") or "").encode("utf-8")


def status_of(outcome: Outcome) -> str:
    if outcome.report is not None:
        return str(outcome.report.get("status", "error"))
    return "interrupted" if outcome.exit_code == 130 else "error"


def step_exit(inputs: ActionInputs, exit_code: int) -> int:
    """coder's exit code, except that 1 (ran, not fully successful) passes when the
    `fail-on-exit` input is false; usage errors (2) and interruptions always fail."""
    if exit_code == 1 and not inputs.fail_on_exit:
        return 0
    return exit_code


def format_outputs(outputs: Mapping[str, str]) -> str:
    """`name=value` lines for $GITHUB_OUTPUT; a value with a line break in a heredoc."""
    lines = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            delimiter = f"CODER_{secrets.token_hex(8)}"
            lines += [f"{name}<<{delimiter}", value, delimiter]
        else:
            lines.append(f"{name}={value}")
    return "\n".join(lines) + "\n"


def _folder(environ: Mapping[str, str], command: str) -> Path:
    """A new folder for this run's files under the runner's temporary folder."""
    base = environ.get("RUNNER_TEMP") or tempfile.gettempdir()
    Path(base).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"coder-{command}-", dir=base))


def _refuse(environ: Mapping[str, str], message: str) -> int:
    print(_command("error", message), flush=True)
    _append(environ, "GITHUB_OUTPUT", format_outputs({"status": "error", "exit-code": "2"}))
    _append(environ, "GITHUB_STEP_SUMMARY", render_summary("action", None, message))
    return 2


def _command(name: str, message: str) -> str:
    """A workflow command (`::error::...`) with its message escaped as the runner wants."""
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return f"::{name} title=coder::{escaped}"


def _append(environ: Mapping[str, str], name: str, text: str) -> None:
    """Append to the runner's file `name` (skipped when the variable is unset: not a runner)."""
    path = environ.get(name)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
