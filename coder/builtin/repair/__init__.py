"""The builtin repair engine (`coder fix` with no model): its policy and the rules that
plan one repair per failure (values, parametrize rows, names, attributes, keywords,
exception types). May import coder.builtin's core, coder.models and tools; never gen."""

from coder.builtin.repair.expected import plan_value
from coder.builtin.repair.kwargs import plan_kwarg
from coder.builtin.repair.model import BuiltinRepairModel
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.repair.names import plan_import
from coder.builtin.repair.policy import RepairPolicy
from coder.builtin.repair.raises import plan_raises

__all__ = [
    "BuiltinRepairModel",
    "ModuleIndex",
    "RepairPolicy",
    "plan_import",
    "plan_kwarg",
    "plan_raises",
    "plan_value",
]
