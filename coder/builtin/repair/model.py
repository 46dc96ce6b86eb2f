"""The builtin repair engine as a Model: `coder fix` with no model configured."""

from __future__ import annotations

from coder.builtin.engine import BuiltinModel
from coder.builtin.repair.policy import RepairPolicy


class BuiltinRepairModel(BuiltinModel):
    """The `builtin` model for `coder fix`: one RepairPolicy per conversation."""

    def __init__(self) -> None:
        super().__init__(RepairPolicy)
