"""`coder fix`: the baseline, the failing tests grouped by file, an agent's repair per
group, its verification, and the final full-suite gate. May import coder.workflows'
shared modules and coder.delivery; never coder.workflows.gen."""
