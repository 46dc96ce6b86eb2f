"""The Action's inputs, read from the `INPUT_*` variables action.yml maps them to, and the
`coder fix|gen` command line they make.

Inputs reach coder as data only: action.yml puts them in the step's environment (never
into the shell script), and `args` is split like a shell would split it, without a shell.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from coder.errors import UsageError

COMMANDS = ("fix", "gen")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")
_GEN_ONLY = {
    "changed-since": "--changed-since",
    "coverage-goal": "--coverage-goal",
    "mutation-goal": "--mutation-goal",
    "time-budget": "--time-budget",
}
"""Inputs `coder gen` takes and `coder fix` has no use for -> their flags."""


class InputError(UsageError):
    """An input of the Action is wrong; the message names it and the values it takes."""


@dataclass(frozen=True)
class ActionInputs:
    """What the workflow asked for (action.yml documents each input)."""

    command: str
    path: str = "."
    model: str = "builtin"
    sandbox: str = "local"
    apply: bool = False
    fail_on_exit: bool = True
    gen_options: tuple[tuple[str, str], ...] = ()
    """(flag, value) for the gen-only inputs that were given."""
    args: tuple[str, ...] = ()
    api_key: str = ""

    def argv(self, junit: Path | None = None) -> list[str]:
        """coder's arguments after the program name. Values travel as `--flag=value` and
        the path after `--`, so no input is read as a flag; `args` come after ours, so
        they override them."""
        argv = [self.command, "--json", f"--model={self.model}", f"--sandbox={self.sandbox}"]
        if not self.apply:
            argv.append("--dry-run")
        argv += [f"{flag}={value}" for flag, value in self.gen_options]
        if junit is not None and self.command == "fix":
            argv.append(f"--junit={junit}")
        return [*argv, *self.args, "--", self.path]


def read_inputs(environ: Mapping[str, str]) -> ActionInputs:
    """The inputs from `environ` (the runner's names: INPUT_ and the input upper-cased)."""

    def given(name: str, default: str = "") -> str:
        # action.yml maps `changed-since` to INPUT_CHANGED_SINCE; the runner itself, for
        # other kinds of action, to INPUT_CHANGED-SINCE.
        upper = "INPUT_" + name.upper()
        value = environ.get(upper.replace("-", "_")) or environ.get(upper) or ""
        return value.strip() or default

    command = given("command")
    if command not in COMMANDS:
        raise InputError(f"input command is {command!r}: set it to fix or gen")
    gen_options = tuple((flag, given(name)) for name, flag in _GEN_ONLY.items() if given(name))
    if command == "fix" and gen_options:
        names = ", ".join(name for name, flag in _GEN_ONLY.items() if given(name))
        raise InputError(f"input {names} is for command gen only: remove it, or use gen")
    return ActionInputs(
        command=command,
        path=given("path", "."),
        model=given("model", "builtin"),
        sandbox=given("sandbox", "local"),
        apply=_flag("apply", given("apply", "false")),
        fail_on_exit=_flag("fail-on-exit", given("fail-on-exit", "true")),
        gen_options=gen_options,
        args=_split("args", given("args")),
        api_key=given("api-key"),
    )


def _flag(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise InputError(f"input {name} is {value!r}: set it to true or false")


def _split(name: str, value: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(value))
    except ValueError as error:
        raise InputError(
            f"input {name} cannot be split into arguments ({error}): close its quotes"
        ) from None
