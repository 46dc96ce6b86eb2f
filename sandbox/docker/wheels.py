"""Wheels for an image, fetched on the host: what the image's Python is (asked once per
image id and kept on disk), which declared requirements it lacks, and `pip download
--only-binary=:all:` of those for its version and platform.

The host's pip may reach the index (the user's pip configuration and PIP_INDEX_URL are
honoured) but never builds a source distribution: that would run code the repository
chose outside the sandbox. A requirement with no wheel is one line naming it and the fix.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from sandbox.base import SandboxUnavailable
from sandbox.docker.engine import owner_labels
from sandbox.docker.files import SANDBOX_UID

Log = Callable[[str], None]
DOWNLOAD_TIMEOUT = 1800.0
WHEEL_DIR = "/tmp/coder-wheels"
"""Where the set-up container gets the wheels: /tmp is a volume, left out of the commit."""
INSTALL_COMMAND = (
    f"python3 -m pip install --no-index --find-links {WHEEL_DIR} --user "
    f"--no-warn-script-location --disable-pip-version-check --progress-bar off "
    f"-r {WHEEL_DIR}/requirements.txt -c {WHEEL_DIR}/constraints.txt"
)
"""Run as the sandbox user with the network off: only the carried wheels can be used."""
# Run by the image's python3 (the image is the user's choice; no workspace is mounted).
_PROBE = r"""
import json, platform, sys
import importlib.metadata as metadata
try:
    from pip._vendor.packaging import markers, tags
    pip = True
except ImportError:
    pip = False
out = {"python": platform.python_version(), "pip": pip, "installed": {}}
for dist in metadata.distributions():
    name = dist.metadata["Name"]
    if name:
        out["installed"][name] = dist.version
if pip:
    out["markers"] = markers.default_environment()
    out["tags"] = [[t.interpreter, t.abi, t.platform] for t in tags.sys_tags()]
print(json.dumps(out))
"""
_NO_VERSION = re.compile(r"(?:satisfies the requirement|distribution found for) (\S+)")
_TAG_PART = re.compile(r"^[A-Za-z0-9_.]{1,100}$")
"""What a wheel tag part looks like; anything else from an image is dropped, not passed on."""
_SAVED = re.compile(r"(?:Saved|File was already downloaded) (\S+\.whl)\s*$")


class WheelsUnavailable(SandboxUnavailable):
    """pip on the host could not download every wheel a resolution needs."""


@dataclass(frozen=True)
class ImageFacts:
    """What the image's python3 is and has."""

    python: str
    """Its version, e.g. 3.11.2."""
    pip: bool
    """It has pip, so wheels can be installed into it."""
    installed: dict[str, str]
    """Distributions it has, canonical name -> version."""
    markers: dict[str, str]
    """Its PEP 508 marker environment."""
    tags: list[tuple[str, str, str]]
    """Its supported wheel tags (interpreter, abi, platform), best first."""

    def pip_target(self) -> list[str]:
        """pip options that pick wheels for this image rather than for the host."""
        version = ".".join(self.python.split(".")[:2])
        implementation = self.tags[0][0][:2] if self.tags else "cp"
        options = [f"--python-version={version}", f"--implementation={implementation}"]
        options += [f"--abi={abi}" for abi in dict.fromkeys(tag[1] for tag in self.tags)]
        platforms = dict.fromkeys(tag[2] for tag in self.tags if tag[2] != "any")
        return options + [f"--platform={platform}" for platform in platforms]


def image_facts(client: Any, image: str, cache_dir: Path) -> ImageFacts:
    """The image's facts, from `cache_dir` when this image id was asked before."""
    image_id = str(client.images.get(image).id).replace("sha256:", "")
    cached = cache_dir / "images" / f"{image_id}.json"
    try:
        return _facts(json.loads(cached.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    raw = _ask(client, image)
    facts = _facts(raw)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(raw))
    return facts


def _ask(client: Any, image: str) -> dict[str, Any]:
    try:
        output = client.containers.run(
            image,
            ["python3", "-c", _PROBE],
            remove=True,
            network_mode="none",
            user=f"{SANDBOX_UID}:{SANDBOX_UID}",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            working_dir="/",
            labels=owner_labels("image-probe"),  # `coder sandbox prune` finds an orphan
        )
        raw = json.loads(bytes(output).decode("utf-8", "replace").strip().splitlines()[-1])
        _facts(raw)
    except Exception as error:
        first = str(error).strip().splitlines()[0][:200] if str(error).strip() else "no answer"
        raise SandboxUnavailable(
            f"cannot ask the image {image!r} which Python it has ({first}); it needs python3 "
            "(and pip, to install dependencies): pass another --image, or --deps off"
        ) from None
    return dict(raw)


def _facts(raw: dict[str, Any]) -> ImageFacts:
    """ImageFacts from the probe's JSON, every field checked (the answer is data)."""
    installed: dict[str, str] = {
        canonicalize_name(str(name)): str(version) for name, version in raw["installed"].items()
    }
    markers = {str(key): str(value) for key, value in (raw.get("markers") or {}).items()}
    tags = [(str(a), str(b), str(c)) for a, b, c in raw.get("tags") or []]
    tags = [tag for tag in tags if all(_TAG_PART.match(part) for part in tag)]
    Version(str(raw["python"]))
    return ImageFacts(str(raw["python"]), bool(raw["pip"]), installed, markers, tags)


def python_problem(requires_python: str | None, facts: ImageFacts, image: str) -> str | None:
    """One line when the image's Python is outside `requires-python`, else None."""
    if not requires_python:
        return None
    try:
        wanted = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return None
    if wanted.contains(facts.python, prereleases=True):
        return None
    return (
        f"the project requires Python {requires_python} (pyproject.toml requires-python) but "
        f"the image {image!r} has Python {facts.python}; pass --image with a Python that fits"
    )


def missing(
    requirements: Sequence[str], constraints: Sequence[str], facts: ImageFacts
) -> list[str]:
    """The requirements the image lacks: markers true for it, and not installed already
    at a version the requirement (and any pin) accepts."""
    pins = _pins(constraints)
    needed = []
    for spec in requirements:
        requirement = Requirement(spec)
        marker = requirement.marker
        if marker is not None and facts.markers and not marker.evaluate(facts.markers):
            continue
        name = canonicalize_name(requirement.name)
        have = facts.installed.get(name)
        if have is None or requirement.extras or not _accepts(requirement, pins.get(name), have):
            needed.append(spec)
    return needed


def _pins(constraints: Sequence[str]) -> dict[str, SpecifierSet]:
    pins: dict[str, SpecifierSet] = {}
    for spec in constraints:
        try:
            requirement = Requirement(spec)
        except InvalidRequirement:
            continue
        pins[canonicalize_name(requirement.name)] = requirement.specifier
    return pins


def _accepts(requirement: Requirement, pin: SpecifierSet | None, version: str) -> bool:
    try:
        parsed = Version(version)
    except InvalidVersion:
        return False
    if not requirement.specifier.contains(parsed, prereleases=True):
        return False
    return pin is None or pin.contains(parsed, prereleases=True)


def download(
    requirements: Sequence[str],
    constraints: Sequence[str],
    facts: ImageFacts,
    dest: Path,
    log: Log,
) -> list[Path]:
    """Wheels of `requirements` and their dependencies for the image, into `dest` (a cache
    kept between runs); returns the files this resolution uses."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="coder-deps-") as folder:
        work = Path(folder)
        (work / "requirements.txt").write_text("".join(f"{spec}\n" for spec in requirements))
        (work / "constraints.txt").write_text("".join(f"{spec}\n" for spec in constraints))
        argv = [sys.executable, "-m", "pip", "download", "--only-binary=:all:"]
        argv += ["--dest", str(dest), "--progress-bar", "off", *facts.pip_target()]
        argv += ["-r", "requirements.txt", "-c", "constraints.txt"]
        log(f"dependencies: resolving {len(requirements)} requirements with pip on this machine")
        done = _run_pip(argv, work)
    if done.returncode != 0:
        raise WheelsUnavailable(_download_problem(done.stdout + done.stderr, facts))
    lines = (done.stdout + "\n" + done.stderr).splitlines()
    names = dict.fromkeys(Path(m.group(1)).name for m in map(_SAVED.search, lines) if m)
    files = [dest / name for name in names if (dest / name).is_file()]
    return files or sorted(dest.glob("*.whl"))


def _run_pip(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise SandboxUnavailable(
            f"pip download of the project's dependencies ran over {DOWNLOAD_TIMEOUT:g} s; "
            "check the index (pip config list), or pass --deps off"
        ) from None
    except OSError as error:
        raise SandboxUnavailable(
            f"cannot run pip on this machine ({error}); or --deps off"
        ) from None


def _download_problem(output: str, facts: ImageFacts) -> str:
    if "No module named pip" in output:
        return (
            f"coder's Python ({sys.executable}) has no pip to download the project's wheels "
            "with: install pip next to coder (`pipx inject coder pip`, or pip install pip "
            "in its environment), or pass --deps off"
        )
    found = _NO_VERSION.search(output)
    where = f"Python {facts.python}" + (f" on {facts.tags[0][2]}" if facts.tags else "")
    if found:
        name = found.group(1)
        return (
            f"no wheel of {name} for the image's {where} on the package index (only a source "
            "distribution, or none): coder never builds one on this machine; provide a wheel "
            "(pip's --find-links in your pip configuration), or install it inside the sandbox "
            f'with --setup "pip install {name}" --setup-network, or pass --deps off'
        )
    errors = [line for line in output.splitlines() if line.startswith("ERROR")]
    last = (errors or output.strip().splitlines() or ["no output"])[-1][:300]
    return (
        f"pip could not download the project's dependencies on this machine ({last}); "
        "fix what the project declares or the index (pip config list), or pass --deps off"
    )


def tar_of_wheels(
    files: Sequence[Path], requirements: Sequence[str], constraints: Sequence[str]
) -> IO[bytes]:
    """An archive of `coder-wheels/` (the wheels, requirements.txt, constraints.txt) owned
    by the sandbox user, to put into /tmp; the caller closes it."""
    archive_file = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes it)
    with tarfile.open(fileobj=archive_file, mode="w") as archive:
        folder = tarfile.TarInfo("coder-wheels")
        folder.type, folder.mode = tarfile.DIRTYPE, 0o755
        _owned(archive, folder)
        for name, lines in (("requirements.txt", requirements), ("constraints.txt", constraints)):
            data = "".join(f"{line}\n" for line in lines).encode()
            info = tarfile.TarInfo(f"coder-wheels/{name}")
            info.size, info.mode = len(data), 0o644
            _owned(archive, info, io.BytesIO(data))
        for path in files:
            info = tarfile.TarInfo(f"coder-wheels/{path.name}")
            info.size, info.mode = path.stat().st_size, 0o644
            with path.open("rb") as handle:
                _owned(archive, info, handle)
    archive_file.seek(0)
    return archive_file


def _owned(archive: tarfile.TarFile, info: tarfile.TarInfo, data: IO[bytes] | None = None) -> None:
    info.uid = info.gid = SANDBOX_UID
    archive.addfile(info, data)
