"""The versions a project's virtualenv has installed, read from its dist-info folders
as pins for the Docker sandbox, leaving out what no index can serve."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox.docker import installed_pins
from tests.helpers import write_tree

SITE = "lib/python3.11/site-packages"


def _dist(name: str, version: str, direct: dict[str, object] | None = None) -> dict[str, str]:
    info = f"{SITE}/{name.replace('-', '_')}-{version}.dist-info"
    files = {f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"}
    if direct is not None:
        files[f"{info}/direct_url.json"] = json.dumps(direct)
    return files


def test_index_installs_are_pinned_and_local_ones_named(tmp_path: Path) -> None:
    venv = write_tree(
        tmp_path / ".venv",
        {
            "pyvenv.cfg": "home = /usr/bin\n",
            **_dist("Werkzeug", "3.0.6"),
            **_dist("six", "1.16.0"),
            **_dist("pip", "24.0"),
            **_dist("my-app", "0.1", {"url": "file:///src/app", "dir_info": {"editable": True}}),
            **_dist("vendored", "2.0", {"url": "file:///wheels/v", "dir_info": {}}),
            **_dist("fromgit", "1.0", {"url": "https://x.invalid/r.git", "vcs_info": {}}),
            **_dist("patched", "1.2+local"),
            f"{SITE}/broken-1.0.dist-info/METADATA": "Name: broken\n",
        },
    )

    found = installed_pins(venv, own=None)

    assert found.pins == ["six==1.16.0", "werkzeug==3.0.6"]
    assert found.left_out == [
        "fromgit 1.0 (installed from a direct URL)",
        "my-app 0.1 (an editable install)",
        "patched 1.2+local (a local version)",
        "vendored 2.0 (installed from a local folder)",
    ]


def test_the_project_itself_is_not_pinned(tmp_path: Path) -> None:
    venv = write_tree(tmp_path / ".venv", {**_dist("My_App", "0.1"), **_dist("attrs", "23.1")})

    assert installed_pins(venv, own="my-app").pins == ["attrs==23.1"]


def test_a_folder_that_is_no_venv_gives_nothing(tmp_path: Path) -> None:
    found = installed_pins(tmp_path / "absent", own=None)

    assert (found.pins, found.left_out) == ([], [])
