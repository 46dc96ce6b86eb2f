"""`coder gen`: the target modules, an agent's tests per module, the judging of each new
test, and the final gate. May import coder.workflows' shared modules and coder.delivery;
never coder.workflows.fix."""

from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.workflow import gen_repo

__all__ = ["GenOptions", "gen_repo"]
