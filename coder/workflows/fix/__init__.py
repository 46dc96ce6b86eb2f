"""`coder fix`: the baseline, the failing tests grouped by file, an agent's repair per
group, its verification, and the final full-suite gate. May import coder.workflows'
shared modules and coder.delivery; never coder.workflows.gen."""

from coder.workflows.fix.options import FixOptions
from coder.workflows.fix.verify import find_weakenings
from coder.workflows.fix.workflow import fix_repo

__all__ = ["FixOptions", "find_weakenings", "fix_repo"]
