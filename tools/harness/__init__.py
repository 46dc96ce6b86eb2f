"""The test harness: pytest runs in a sandbox read back as a TestRun, coverage (per run and
per test), what it leaves uncovered, and the pytest plugin copied into sandboxes. Imports
`sandbox` and `tools.testfiles` only; `tools` exports its public names.
"""
