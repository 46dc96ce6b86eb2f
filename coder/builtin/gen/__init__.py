"""The builtin test generator (`coder gen` with no model): targets, call values, probes,
freezing, rendering, tables and selection. May import coder.builtin's core,
coder.models and tools; never coder.builtin.repair."""

from coder.builtin.gen.calls import Call
from coder.builtin.gen.goal import GenTarget
from coder.builtin.gen.model import BuiltinGenModel
from coder.builtin.gen.policy import GenPolicy
from coder.builtin.gen.probe import RECORD_MARK, RUN_MARK, Result, parse_probe_output
from coder.builtin.gen.select import Aim, choose, notices
from coder.builtin.gen.targets import add_site_calls, find_targets
from coder.builtin.gen.types import Probe, Target

__all__ = [
    "RECORD_MARK",
    "RUN_MARK",
    "Aim",
    "BuiltinGenModel",
    "Call",
    "GenPolicy",
    "GenTarget",
    "Probe",
    "Result",
    "Target",
    "add_site_calls",
    "choose",
    "find_targets",
    "notices",
    "parse_probe_output",
]
