"""The builtin repair engine as a Model: `coder fix` with no model configured."""

from __future__ import annotations

from coder.builtin.engine import BuiltinModel
from coder.builtin.repair.history import Before
from coder.builtin.repair.policy import RepairPolicy
from coder.builtin.repair.workspace import Learnt


class BuiltinRepairModel(BuiltinModel):
    """The `builtin` model for `coder fix`: one RepairPolicy per conversation; `before`
    is the source's history, which the workflow reads from git on the host. The groups'
    policies share what they learn of the source (`Learnt`)."""

    def __init__(self, before: Before | None = None) -> None:
        self.before = before
        learnt = Learnt()
        super().__init__(lambda: RepairPolicy(before, learnt))
