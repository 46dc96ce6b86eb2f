"""The test harness: pytest runs in a sandbox read back as a TestRun, coverage (per run and
per test), what it leaves uncovered, the pytest plugin copied into sandboxes, and mutation
testing (mutants of a module, each run against its tests). Imports `sandbox` and
`tools.testfiles` only; `tools` exports its public names.
"""
