"""docs/ci.md shows the Action as it is: its workflow file is the one on the page, and
every `uses:` of coder there passes inputs action.yml has, the required ones included."""

from __future__ import annotations

from typing import Any

import yaml

from tests.action.runner import ROOT, load_action

WORKFLOW = ROOT / "docs" / "github-actions-coder.yml"


def _coder_steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    return [step for step in steps if str(step.get("uses", "")).startswith("OWNER/coder@")]


def test_the_page_shows_the_workflow_file() -> None:
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert f"```yaml\n{WORKFLOW.read_text(encoding='utf-8')}```" in page


def test_the_workflow_uses_the_actions_inputs_and_outputs() -> None:
    action = load_action()
    steps = _coder_steps(yaml.safe_load(WORKFLOW.read_text(encoding="utf-8")))
    assert {step["with"]["command"] for step in steps} == {"fix", "gen"}
    required = {name for name, spec in action["inputs"].items() if spec.get("required")}
    for step in steps:
        assert set(step["with"]) <= set(action["inputs"]), step["with"]
        assert required <= set(step["with"])
    text = WORKFLOW.read_text(encoding="utf-8")
    used = {part.split()[0] for part in text.split("steps.coder.outputs.")[1:]}
    assert used and used <= set(action["outputs"])
