"""The builtin generator as a Model: `coder gen` with no model configured.

The gen workflow names the module to cover in the task message's private data
(`messages[1]["_data"]["target"]`: path, module, test_file, functions, uncovered_lines);
a GenPolicy for that target then drives the tools through the same loop and the same
BuiltinModel machinery as the repair engine. No tokens are spent.
"""

from __future__ import annotations

from typing import Any

from coder.builtin.engine import BuiltinModel
from coder.builtin.gen.goal import GenTarget
from coder.builtin.gen.policy import GenPolicy
from coder.models.base import PRIVATE_DATA, Message, Reply, ToolSchema


class BuiltinGenModel:
    """The `builtin` model for `coder gen`: one GenPolicy per conversation."""

    name = "builtin"

    def __init__(self) -> None:
        self._engine: BuiltinModel | None = None
        self._target: GenTarget | None = None

    def for_group(self, key: str) -> BuiltinGenModel:
        """A fresh generator for one target module (targets may run at once)."""
        return BuiltinGenModel()

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        if self._engine is None or not any(m.get("role") == "assistant" for m in messages):
            target = GenTarget.from_data(task_target(messages))
            self._target = target
            self._engine = BuiltinModel(lambda: GenPolicy(target))
        return self._engine.complete(messages, tools)


def task_target(messages: list[Message]) -> Any:
    """The target the workflow put on the task message (the first user message with one)."""
    for message in messages:
        data = message.get(PRIVATE_DATA)
        if message.get("role") == "user" and isinstance(data, dict) and "target" in data:
            return data["target"]
    return None
