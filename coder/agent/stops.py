"""Control flow of the agent loop, as a tiny exception tree.

    AgentStop                   ends the loop; `status` goes into the report
     ├── Submitted              the model called `finish`             status "finished"
     ├── LimitsExceeded         step, token or wall-clock limit hit   status "limits_exceeded"
     ├── FormatError            too many malformed calls in a row     status "format_error"
     └── Stuck                  kept repeating after being warned     status "stuck"

A model failure (`coder.models.ModelError`) is not part of this tree: it ends the
run with status "model_error" and the model's own message.
"""

from __future__ import annotations


class AgentStop(Exception):
    status = "stopped"

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


class Submitted(AgentStop):
    status = "finished"


class LimitsExceeded(AgentStop):
    status = "limits_exceeded"


class FormatError(AgentStop):
    status = "format_error"


class Stuck(AgentStop):
    status = "stuck"
