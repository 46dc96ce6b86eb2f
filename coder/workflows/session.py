"""What every workflow run starts with: a run folder, a redacted trace, a model, and a
snapshot of the user's files; and how it ends: the patch and the report saved."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from coder.agent.trace import Tracer, redact
from coder.config import ConfigError, Settings
from coder.delivery.patching import snapshot
from coder.delivery.runs import RunDir, create_run_dir
from coder.models import Model, make_model
from coder.models.presets import BUILTIN
from sandbox import secret_values
from tools.base import Approver

EventHandler = Callable[[str, dict[str, Any]], None]


@dataclass
class RunHooks:
    """How a run talks to the person watching it."""

    warn: Callable[[str], None]
    info: Callable[[str], None] = lambda message: None
    on_event: EventHandler | None = None
    approve: Approver | None = None


@dataclass
class Session:
    settings: Settings
    repo: Path
    model: Model
    run_dir: RunDir
    tracer: Tracer
    secrets: list[str]
    manifest: dict[str, str]
    """sha256 of the user's files when the run began: the guard of the final apply."""
    started: float = field(default_factory=time.monotonic)
    originals: dict[str, bytes] = field(default_factory=dict)
    """The files' bytes when the run began (all but very large ones)."""

    @classmethod
    def start(cls, settings: Settings, repo: Path, model: Model | None = None) -> Session:
        model = model or build_model(settings)
        run_dir = create_run_dir(repo)
        secrets = run_secrets(settings)
        tracer = Tracer(run_dir.trace, run_dir.run_id, secrets)
        originals: dict[str, bytes] = {}
        manifest = snapshot(repo, keep=originals)
        return cls(settings, repo, model, run_dir, tracer, secrets, manifest, originals=originals)

    def original(self, rel: str) -> bytes | None:
        """`rel` as it was when the run began (None: absent), whatever the user did since."""
        if rel in self.originals or rel not in self.manifest:
            return self.originals.get(rel)
        path = self.repo / rel  # too large to keep: today's bytes are the best we have
        return path.read_bytes() if path.is_file() else None

    def originals_of(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        return {rel: self.original(rel) for rel in paths}

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def save(self, report: BaseModel, patch: str) -> None:
        """The patch as is; the report with every secret value redacted."""
        self.run_dir.patch.write_text(patch, encoding="utf-8")
        data = redact(report.model_dump(mode="json"), self.secrets)
        self.run_dir.report.write_text(json.dumps(data, indent=2), encoding="utf-8")


BUILTIN_NOTE = (
    "no model configured; using the builtin engine (offline, mechanical test repairs). "
    "For an LLM: --model openai:gpt-4o-mini or LLM_MODEL=... (with LLM_API_KEY)"
)


def fix_model(settings: Settings, hooks: RunHooks) -> Model:
    """The configured model; with none, the builtin engine, and one line saying so."""
    if settings.model is not None:
        return build_model(settings)
    from coder.builtin.engine import BuiltinModel

    hooks.info(BUILTIN_NOTE)
    return BuiltinModel()


GEN_BUILTIN_NOTE = (
    "no model configured; using the builtin generator (offline characterisation tests). "
    "For an LLM: --model openai:gpt-4o-mini or LLM_MODEL=... (with LLM_API_KEY)"
)


def gen_model(settings: Settings, hooks: RunHooks) -> Model:
    """The configured model; with none (or `builtin`), the builtin test generator."""
    if settings.model not in (None, BUILTIN):
        return build_model(settings)
    try:
        from coder.builtin.gen.model import BuiltinGenModel
    except ModuleNotFoundError as exc:
        if exc.name != "coder.builtin.gen.model":
            raise
        raise ConfigError(
            "no builtin test generator in this build: pass --model (e.g. openai:gpt-4o-mini, "
            "ollama:qwen2.5-coder) or set LLM_MODEL"
        ) from exc
    if settings.model is None:
        hooks.info(GEN_BUILTIN_NOTE)
    return BuiltinGenModel()


def build_model(settings: Settings) -> Model:
    if settings.model is None:
        raise ConfigError(
            "no model configured: pass --model (e.g. openai:gpt-4o-mini, ollama:qwen2.5-coder) "
            "or set LLM_MODEL (with LLM_BASE_URL and LLM_API_KEY as needed)"
        )
    return make_model(
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        temperature=settings.temperature,
        timeout=settings.request_timeout,
        tool_protocol=settings.tool_protocol,
        context_tokens=settings.context_tokens,
    )


def run_secrets(settings: Settings) -> list[str]:
    """Values that must never be written anywhere: the key, and secret-looking env vars."""
    values = secret_values(os.environ)
    if settings.api_key:
        values.append(settings.api_key.get_secret_value())
    return values
