"""The agent: the ReAct loop, its guards and stop exceptions, memory, prompts and traces.
May import coder.models, tools and sandbox; never the builtin engines, workflows or CLI."""

from coder.agent.loop import NUDGE, Agent, AgentConfig, AgentResult, EventHandler
from coder.agent.otel import run_spans
from coder.agent.prompts import FIX_TASK, GEN_TASK, SYSTEM_PROMPT
from coder.agent.stops import AgentStop, FormatError, LimitsExceeded, Stuck, Submitted
from coder.agent.trace import Tracer, load_events, redact, render_timeline

__all__ = [
    "FIX_TASK",
    "GEN_TASK",
    "NUDGE",
    "SYSTEM_PROMPT",
    "Agent",
    "AgentConfig",
    "AgentResult",
    "AgentStop",
    "EventHandler",
    "FormatError",
    "LimitsExceeded",
    "Stuck",
    "Submitted",
    "Tracer",
    "load_events",
    "redact",
    "render_timeline",
    "run_spans",
]
