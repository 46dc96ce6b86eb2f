"""JUnit XML from test outcomes (`TestOutcome.model_dump()` dicts), for CI dashboards.

Names follow pytest's own junitxml: `tests/test_x.py::TestA::test_b[1-2]` becomes
classname `tests.test_x.TestA` and name `test_b[1-2]`. An xfailed test is reported as
skipped and an xpassed one as passed, as pytest does. Every name, message and traceback
passes through the run's Redactor: a secret in a test's id or failure stays out.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coder.redaction import Redactor
from tools import TestRun

_FAILURE_TAGS = {"failed": "failure", "error": "error"}
_SKIPPED = {"skipped": "pytest.skip", "xfailed": "pytest.xfail"}
_PASSED = {"passed", "xpassed"}
# Characters XML 1.0 cannot hold, such as the ANSI escapes in coloured pytest output.
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_junit(
    path: Path,
    suite_name: str,
    outcomes: Sequence[Mapping[str, Any]],
    secrets: Redactor | None = None,
) -> None:
    """Write one <testsuite> holding a <testcase> per outcome to `path`, `secrets` hidden."""
    redact = secrets or Redactor()
    outcomes = [redact(outcome) for outcome in outcomes]
    suite = ET.Element("testsuite", _suite_attributes(suite_name, outcomes))
    for outcome in outcomes:
        suite.append(_testcase(outcome))
    root = ET.Element("testsuites", _suite_attributes(suite_name, outcomes))
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def outcomes_of(run: TestRun) -> list[dict[str, Any]]:
    """Every test of `run` by node id, the failures with their details, for `write_junit`."""
    details = {failure.nodeid: failure.model_dump() for failure in run.failures}
    return [
        details.get(nodeid, {"nodeid": nodeid, "outcome": outcome})
        for nodeid, outcome in sorted(run.outcomes.items())
    ]


def split_nodeid(nodeid: str) -> tuple[str, str]:
    """(classname, name) for a pytest node id, as pytest's junitxml names them."""
    file, separator, rest = nodeid.partition("::")
    if not separator:  # a module that failed to collect
        classname, _, name = _dotted_module(file).rpartition(".")
        return classname, name
    test, bracket, params = rest.partition("[")
    *classes, function = test.split("::")
    return ".".join([_dotted_module(file), *classes]), function + bracket + params


def _suite_attributes(name: str, outcomes: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    kinds = [_kind(outcome) for outcome in outcomes]
    return {
        "name": name,
        "tests": str(len(outcomes)),
        "failures": str(kinds.count("failed")),
        "errors": str(kinds.count("error")),
        "skipped": str(sum(kind in _SKIPPED for kind in kinds)),
        "time": _seconds(sum(float(outcome.get("duration") or 0) for outcome in outcomes)),
    }


def _testcase(outcome: Mapping[str, Any]) -> ET.Element:
    classname, name = split_nodeid(str(outcome["nodeid"]))
    case = ET.Element(
        "testcase",
        {
            "classname": _clean(classname),
            "name": _clean(name),
            "time": _seconds(outcome.get("duration")),
        },
    )
    kind = _kind(outcome)
    message = _clean(str(outcome.get("message") or ""))
    if kind in _FAILURE_TAGS:
        detail = ET.SubElement(case, _FAILURE_TAGS[kind], _detail_attributes(outcome, message))
        detail.text = _clean(_failure_text(outcome))
    elif kind in _SKIPPED:
        ET.SubElement(case, "skipped", {"type": _SKIPPED[kind], "message": message})
    return case


def _kind(outcome: Mapping[str, Any]) -> str:
    kind = str(outcome["outcome"])
    if kind in _FAILURE_TAGS or kind in _SKIPPED or kind in _PASSED:
        return kind
    raise ValueError(f"unknown outcome {kind!r} for {outcome.get('nodeid')!r}")


def _detail_attributes(outcome: Mapping[str, Any], message: str) -> dict[str, str]:
    attributes = {"message": message.splitlines()[0] if message else ""}
    if outcome.get("exc_type"):
        attributes["type"] = str(outcome["exc_type"])
    return attributes


def _failure_text(outcome: Mapping[str, Any]) -> str:
    """The message, the compared operands and the traceback, as a person would read them."""
    lines = [str(outcome.get("message") or "")]
    comparison = outcome.get("comparison")
    if comparison:
        lines += ["", f"left:  {comparison['left']}", f"op:    {comparison['op']}"]
        lines.append(f"right: {comparison['right']}")
    frames = outcome.get("traceback") or []
    if frames:
        lines += ["", "Traceback:"]
    for frame in frames:
        line = "" if frame.get("line") is None else f":{frame['line']}"
        lines.append(f"  {frame['file']}{line} in {frame.get('function') or '?'}")
        if frame.get("code"):
            lines.append(f"    {frame['code']}")
    return "\n".join(lines).strip("\n")


def _dotted_module(file: str) -> str:
    return re.sub(r"\.py$", "", file).replace("/", ".")


def _seconds(value: Any) -> str:
    return f"{float(value or 0):.3f}"


def _clean(text: str) -> str:
    return _INVALID_XML.sub(lambda match: f"#x{ord(match.group()):02X}", text)
