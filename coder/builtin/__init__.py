"""The offline models' shared core: the engine that makes a policy a Model, gathering
files through the tools, literals, syntax queries, source edits and plans. May import
coder.models and tools; never its engines (coder.builtin.repair, coder.builtin.gen)."""

from coder.builtin.engine import (
    BuiltinModel,
    EnginePolicy,
    Observation,
    Policy,
    Steps,
    ToolRequest,
)
from coder.builtin.gather import module_name, read_files
from coder.builtin.plan import MODEL_HINT, Edit, Plan, Refusal, apply_edits

__all__ = [
    "MODEL_HINT",
    "BuiltinModel",
    "Edit",
    "EnginePolicy",
    "Observation",
    "Plan",
    "Policy",
    "Refusal",
    "Steps",
    "ToolRequest",
    "apply_edits",
    "module_name",
    "read_files",
]
