"""What every workflow run is made of: a run folder, a redacted trace, the model, a
snapshot of the user's files, the sandbox and the agents; and how it ends: the changes
delivered through coder/delivery, the patch and the report saved."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from coder.agent import Agent, AgentConfig, EventHandler, Tracer, run_spans
from coder.builtin import BuiltinModel
from coder.builtin.gen import BuiltinGenModel
from coder.builtin.repair import BuiltinRepairModel
from coder.config import ConfigError, Settings
from coder.delivery.handover import Delivery, Handover, deliver
from coder.delivery.patching import Changes, UserFiles, make_patch
from coder.delivery.report import Interpreter, RunReport
from coder.delivery.runs import RunDir, create_run_dir
from coder.models import Model, model_from_settings
from coder.models.presets import BUILTIN
from coder.redaction import Redactor
from coder.workflows.engines import EnginePool, LeasedSandbox
from coder.workflows.history import with_history
from coder.workflows.sandboxes import open_sandbox, require_isolation
from sandbox import (
    MAX_COPY_BYTES,
    Sandbox,
    SandboxError,
    UnsafeChange,
    oversized_files,
    size_text,
)
from tools import Approver, ToolContext, WritePolicy, allow_all_writes, default_registry

Command = Literal["run", "fix", "gen"]
SANDBOX_ERROR = "sandbox_error"
"""The status of a run whose sandbox ended it: died, or handed back what is unsafe."""
R = TypeVar("R", bound=RunReport)


@dataclass
class RunHooks:
    """How a run talks to the person watching it."""

    warn: Callable[[str], None]
    info: Callable[[str], None] = lambda message: None
    on_event: EventHandler | None = None
    approve: Approver | None = None


@dataclass(frozen=True)
class Effort:
    """The turns and tokens agents spent."""

    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @classmethod
    def of(cls, agent: Agent) -> Effort:
        return cls(agent.turns, agent.usage.prompt_tokens, agent.usage.completion_tokens)

    def __add__(self, other: Effort) -> Effort:
        return Effort(
            self.turns + other.turns,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )

    def usage(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass
class Session:
    """One run of `command`: built by `start`, it opens sandboxes, builds agents,
    delivers the changes and saves the report."""

    command: Command
    settings: Settings
    hooks: RunHooks
    model: Model
    run_dir: RunDir
    tracer: Tracer
    redact: Redactor
    """Hides the key and the environment's secrets in everything the run writes."""
    files: UserFiles
    """The user's files when the run began: the guard of the final apply."""
    started: float = field(default_factory=time.monotonic)
    interpreter: Interpreter | None = None
    """The interpreter the tests run with, once the environment check found it."""
    python_path: tuple[str, ...] = ()
    """Workspace folders first on PYTHONPATH in every sandbox (see workflows/environment.py)."""
    engines: EnginePool = field(init=False)
    """The Docker engines the run's sandboxes are spread over (settings.engines)."""

    def __post_init__(self) -> None:
        self.engines = EnginePool(self.settings.engines)

    @classmethod
    def start(
        cls,
        command: Command,
        settings: Settings,
        repo: Path,
        hooks: RunHooks,
        model: Model | None = None,
    ) -> Session:
        """A run folder and a trace for `command` on `repo`; `model` (for tests) or else
        the one `choose_model` picks, before anything is written."""
        model = model or choose_model(command, settings, hooks.info)
        model = with_history(model, repo) if command == "fix" else model
        require_isolation(settings, builtin=is_builtin(model))
        run_dir = create_run_dir(repo)
        redact = Redactor(run_secrets(settings))
        spans = run_spans(run_dir.run_id, command, model.name, hooks.warn)
        tracer = Tracer(run_dir.trace, run_dir.run_id, redact.secrets, observers=spans)
        return cls(command, settings, hooks, model, run_dir, tracer, redact, UserFiles.take(repo))

    @property
    def repo(self) -> Path:
        return self.files.repo

    def open_sandbox(self, *, quiet: bool = False, probed: bool = False) -> LeasedSandbox:
        """A sandbox (to enter) holding a copy of the repository, on the least busy of the
        run's engines; `quiet` keeps the set-up lines to the first one a run opens;
        `probed`: the caller runs check_environment on it first thing (see open_sandbox)."""
        info = None if quiet else self.hooks.info
        warn, run_id, builtin = self.hooks.warn, self.run_dir.run_id, is_builtin(self.model)
        if not quiet:
            for path, size in oversized_files(self.repo).items():
                warn(
                    f"{path} ({size_text(size)}) is left out of the sandbox: files over "
                    f"{size_text(MAX_COPY_BYTES)} are not copied (data or build artifacts)"
                )
        settings, repo, first = self.settings, self.repo, self.python_path
        args = (settings, repo, warn, run_id, info, builtin)
        return self.engines.leased(lambda engine: open_sandbox(*args, engine, first, probed))

    def agent(
        self,
        sandbox: Sandbox,
        *,
        key: str | None = None,
        policy: WritePolicy = allow_all_writes,
        tests: list[str] | None = None,
    ) -> Agent:
        """An agent on `sandbox` with the run's tools, limits, trace and hooks; `key` names
        its group (a test file for fix, a module for gen), `tests` its default tests."""
        settings, hooks = self.settings, self.hooks
        context = ToolContext(
            sandbox=sandbox,
            write_policy=policy,
            approve=hooks.approve,
            default_tests=tests,
            test_timeout=settings.test_timeout,
            shell_timeout=settings.shell_timeout,
        )
        model = self.model if key is None else model_for(self.model, key)
        registry, config = default_registry(), agent_config(settings)
        events = _labelled(hooks.on_event, key)
        return Agent(model, registry, context, config, tracer=self.tracer, on_event=events)

    def deliver(self, changes: Changes, handover: Handover) -> Delivery:
        try:
            delivery = deliver(self.files, self.run_dir.path, changes, handover, self.redact)
        except UnsafeChange as error:  # e.g. a symlink in the user's tree where a change goes
            patch = make_patch(self.files.originals_of(changes), changes)
            return Delivery(sorted(changes), patch, refused=str(error))
        if delivery.kept:
            self.hooks.warn(
                f"kept {', '.join(delivery.kept)}: `coder {self.command}` never deletes a "
                "file of yours, so these deletions were left out of the patch"
            )
        if delivery.commit:
            self.hooks.info(f"committed on branch {delivery.branch} ({delivery.commit[:10]})")
        return delivery

    def lost(self, kind: type[R], sandbox: Sandbox, gone: SandboxError, effort: Effort) -> R:
        """The saved report of a run its sandbox ended: status `sandbox_error` (it died) or
        `refused` (it handed back what cannot be delivered), the reason, and as a patch,
        never applied, what could still be read from a dead sandbox."""
        changes: Changes = {}
        if not isinstance(gone, UnsafeChange):
            with contextlib.suppress(SandboxError):
                changes = sandbox.changes()  # a stopped container still hands its files
        delivery = self.deliver(changes, Handover(dry_run=True)) if changes else Delivery()
        status = "refused" if isinstance(gone, UnsafeChange) else SANDBOX_ERROR
        self.tracer.event("run_end", status=status, error=str(gone))
        report = self.report(kind, sandbox, effort, delivery, status=status, error=str(gone))
        self.save(report)
        return report

    def report(
        self, kind: type[R], sandbox: Sandbox, effort: Effort, delivery: Delivery, **fields: Any
    ) -> R:
        """The report of the run, built once at its end: the fields every report shares
        (the duration measured now), the delivery's that `kind` holds, and `fields`."""
        delivered = {k: v for k, v in delivery.fields().items() if k in kind.model_fields}
        if delivery.refused:  # whatever else the run achieved, it delivered nothing
            error = "; ".join(filter(None, [delivery.refused, fields.get("error")]))
            fields = {**fields, "status": "refused", "error": error}
        return kind(
            run_id=self.run_dir.run_id,
            command=self.command,
            model=self.model.name,
            sandbox=sandbox.name,
            turns=effort.turns,
            usage=effort.usage(),
            trace=str(self.run_dir.trace),
            patch_file=str(self.run_dir.patch),
            duration_s=self.elapsed(),
            interpreter=self.interpreter,
            **delivered,
            **fields,
        )

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def save(self, report: RunReport) -> None:
        """The patch and the report, every secret value in them redacted."""
        self.run_dir.patch.write_text(self.redact.text(report.patch), encoding="utf-8")
        data = self.redact(report.model_dump(mode="json"))
        self.run_dir.report.write_text(json.dumps(data, indent=2), encoding="utf-8")
        self.tracer.close(**data)  # the run's spans end with its report


def agent_config(settings: Settings) -> AgentConfig:
    return AgentConfig(
        max_turns=settings.max_turns,
        token_budget=settings.token_budget,
        wall_clock=settings.wall_clock,
        context_tokens=settings.context_tokens,
    )


def model_for(model: Model, key: str) -> Model:
    """A scripted model may carry one script per group (a test file for fix, a module for
    gen); other models serve every group."""
    for_group = getattr(model, "for_group", None)
    return for_group(key) if callable(for_group) else model


_FOR_AN_LLM = "For an LLM: --model openai:gpt-4o-mini or LLM_MODEL=... (with LLM_API_KEY)"
BUILTIN_NOTES: dict[Command, str] = {
    "fix": "no model configured; using the builtin engine (offline, mechanical test "
    f"repairs). {_FOR_AN_LLM}",
    "gen": "no model configured; using the builtin generator (offline characterisation "
    f"tests). {_FOR_AN_LLM}",
}
NO_MODEL = (
    "no model configured: pass --model (e.g. openai:gpt-4o-mini, ollama:qwen2.5-coder) "
    "or set LLM_MODEL (with LLM_BASE_URL and LLM_API_KEY as needed), or `model` in "
    "your user config file (~/.config/coder/config.toml)"
)


def choose_model(command: Command, settings: Settings, info: Callable[[str], None]) -> Model:
    """The configured model. `builtin`, or for fix and gen no model at all, is the
    command's offline engine; with no model, one line says so (`run` needs a model)."""
    spec = settings.model
    if spec is None and command not in BUILTIN_NOTES:
        raise ConfigError(NO_MODEL)
    if spec is None:
        info(BUILTIN_NOTES[command])
    if spec is None or spec.strip() == BUILTIN:
        return builtin_model(command)
    return model_from_settings(spec, settings, info)


def is_builtin(model: Model) -> bool:
    """The offline engines run only the project's own tests and probes, so they may use
    the local sandbox without bubblewrap; any other model may not."""
    return isinstance(model, (BuiltinModel, BuiltinGenModel))


def builtin_model(command: Command) -> Model:
    """The offline engine: the test generator for gen, the repair engine otherwise."""
    return BuiltinGenModel() if command == "gen" else BuiltinRepairModel()


def run_secrets(settings: Settings) -> list[str]:
    """Values that must never be written anywhere: the key, and secret-looking env vars."""
    key = settings.api_key.get_secret_value() if settings.api_key else None
    return Redactor.from_environment(key).secrets


def _labelled(on_event: EventHandler | None, key: str | None) -> EventHandler | None:
    """Events naming their group (a test file, a module): with --jobs, whose line it is."""
    if on_event is None or key is None:
        return on_event
    return lambda kind, fields: on_event(kind, {**fields, "group": key})
