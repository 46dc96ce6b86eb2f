"""Before a baseline: the interpreter the tests run with (said, and kept for the report),
that it imports pytest and the project, and that the project imports from the sandbox's
copy, not from the user's checkout through an editable install or from site-packages.

One probe runs in the sandbox as the tests do (`python3`, cwd the workspace, not
isolated). A project package found outside the workspace is fixed by putting the
workspace's package roots first on PYTHONPATH for every later command, then probed
again; if it still comes from elsewhere the run stops: the wrong tree is never measured.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, StringConstraints, ValidationError

from coder.delivery.report import Interpreter
from coder.workflows.packages import Package, distribution_name, project_packages
from coder.workflows.session import Session
from sandbox import LocalSandbox, Sandbox, is_inside
from sandbox.docker import DockerSandbox

_MARK = "@@coder-environment@@"
# Runs as the tests do, so that it sees what they will see; only its marked line is read.
_PROBE = f"""
import importlib, importlib.metadata, importlib.util, json, os, sys
out = {{"executable": sys.executable, "version": sys.version.split()[0],
       "cwd": os.path.realpath(os.getcwd()), "modules": {{}}}}
try:  # found, not imported: a broken pytest shows in the baseline; this spares ~0.2 s
    if importlib.util.find_spec("pytest") is None:
        raise ModuleNotFoundError("No module named 'pytest'")
    out["pytest"] = importlib.metadata.version("pytest")
except importlib.metadata.PackageNotFoundError:
    out["pytest"] = "(version unknown)"
except BaseException as error:
    out["pytest_error"] = type(error).__name__ + ": " + str(error)
unfound = None
for name in json.loads(sys.argv[1]):
    try:
        module = importlib.import_module(name)
        where = getattr(module, "__file__", None)
        out["modules"][name] = {{"file": where and os.path.realpath(where),
            "path": [os.path.realpath(p) for p in getattr(module, "__path__", [])]}}
    except BaseException as error:
        out["modules"][name] = {{"error": type(error).__name__ + ": " + str(error)[:300],
            "missing": getattr(error, "name", None)}}
        unfound = unfound or (name if getattr(error, "name", None) == name else None)
try:  # installed, yet not found: an install the sandbox hides (an editable one)
    named = sys.argv[2] or (importlib.metadata.packages_distributions().get(unfound) or [""])[0]
    found = importlib.metadata.distribution(named) if unfound and named else None
    out["installed"] = found and (found.read_text("direct_url.json") or "{{}}")
except Exception:
    pass
print("\\n{_MARK}" + json.dumps(out))
"""
_PROBE_TIMEOUT = 120.0
_FIX = "activate the project's virtualenv before running coder, or pass --python PATH"
_DOCKER_FIX = "give the image what the project needs (--deps auto, or --setup 'pip install ...')"


Short = Annotated[str, StringConstraints(max_length=500)]
"""What the probe in the sandbox says (untrusted): short strings, or it is not read."""


class _Module(BaseModel):
    file: Short | None = None
    path: list[Short] = []
    error: Short | None = None
    missing: Short | None = None


class _Probe(BaseModel):
    executable: Short
    version: Annotated[str, StringConstraints(max_length=40)] = ""
    cwd: Short
    pytest: Annotated[str, StringConstraints(max_length=40)] | None = None
    pytest_error: Short | None = None
    modules: dict[Short, _Module] = {}
    installed: Annotated[str, StringConstraints(max_length=2000)] | None = None
    """The project's direct_url.json when it is installed in the interpreter."""


@dataclass(frozen=True)
class Readiness:
    """What the check found: the interpreter, and why the run must stop (or None)."""

    interpreter: Interpreter
    stop: str | None = None


def check_environment(session: Session, sandbox: Sandbox) -> Readiness:
    """Say which interpreter runs the tests and why; fix or refuse a project that imports
    from outside the copy. Sets `session.interpreter` and `session.python_path`."""
    pyproject = session.files.original("pyproject.toml")
    packages = project_packages(session.files.hashes, pyproject)
    names = json.dumps([package.name for package in packages])
    command = f"python3 -c {shlex.quote(_PROBE)} {shlex.quote(names)}"
    command += f" {shlex.quote(distribution_name(pyproject) or '')}"
    chosen = _chosen(sandbox)
    for note in _notes(sandbox):
        session.hooks.warn(note)
    timeout = min(session.settings.test_timeout, _PROBE_TIMEOUT)
    probe, failure = _probe(sandbox, command, timeout)
    if probe is None:
        session.interpreter = chosen
        return _unprobed(session, chosen, failure, isinstance(sandbox, LocalSandbox))
    local = isinstance(sandbox, LocalSandbox)
    # What the sandbox says is untrusted: the local sandbox's choice is known here.
    interpreter = chosen if local else Interpreter(path=probe.executable, reason=chosen.reason)
    session.interpreter = interpreter
    pytest = f"pytest {probe.pytest}" if probe.pytest else "no pytest"
    session.hooks.info(
        f"interpreter: {interpreter.path} ({interpreter.reason}; Python {probe.version}, {pytest})"
    )
    stop = _cannot_import(probe, packages, interpreter, local)
    leaks = _leaks(probe, packages, image=not local)
    if stop is None and leaks:
        again = _import_the_copy(session, sandbox, packages, leaks)
        probe, failure = _probe(sandbox, command, timeout)
        stop = _still_outside(probe, packages, again, failure)
        if stop is None and probe is not None:
            stop = _cannot_import(probe, packages, interpreter, local)
    return Readiness(interpreter, stop)


def _chosen(sandbox: Sandbox) -> Interpreter:
    if isinstance(sandbox, LocalSandbox):
        python = sandbox.python
        return Interpreter(path=python.executable, reason=python.reason)
    image = sandbox.config.image if isinstance(sandbox, DockerSandbox) else "?"
    return Interpreter(path="python3", reason=f"the python3 of the image {image}")


def _notes(sandbox: Sandbox) -> tuple[str, ...]:
    return sandbox.python.notes if isinstance(sandbox, LocalSandbox) else ()


def _probe(sandbox: Sandbox, command: str, timeout: float) -> tuple[_Probe | None, str]:
    """The probe's findings, or None and what went wrong."""
    result = sandbox.exec(command, timeout=timeout)
    _, marker, line = result.stdout.rpartition(f"\n{_MARK}")
    if marker:
        try:
            return _Probe.model_validate_json(line.strip().splitlines()[0]), ""
        except (ValidationError, IndexError):
            pass
    said = [text.strip() for text in (result.stderr, result.stdout) if text.strip()]
    why = "timed out" if result.timed_out else (said[0].splitlines()[-1] if said else "")
    return None, f"exit {result.exit_code}{f': {why}' if why else ''}"[:400]


def _unprobed(session: Session, interpreter: Interpreter, failure: str, local: bool) -> Readiness:
    """The probe gave no answer: an interpreter that does not start stops the run."""
    said = f"{interpreter.path} ({interpreter.reason})"
    if failure.startswith(("exit 126", "exit 127")):
        fix = _FIX if local else _DOCKER_FIX
        return Readiness(interpreter, _stop(f"{said} does not start ({failure})", said, fix))
    session.hooks.warn(f"could not check the interpreter {said}: {failure}")
    return Readiness(interpreter)


def _stop(problem: str, said: str, fix: str) -> str:
    """A stop in the style of `hints.cannot_run`: the problem, the interpreter, the fix."""
    return f"the tests cannot run: {problem}\ninterpreter: {said}\nlikely fix: {fix}"


def _cannot_import(
    probe: _Probe, packages: list[Package], interpreter: Interpreter, local: bool
) -> str | None:
    """The stop when pytest, or a dependency of the project, is missing; `local`: the
    fix is the interpreter's (else the Docker image's)."""
    said, python = f"{interpreter.path} ({interpreter.reason})", interpreter.path
    if probe.pytest is None:
        problem = f"{python} cannot import pytest ({probe.pytest_error or 'no pytest'})"
        fix = f"install pytest into it ({python} -m pip install pytest), or {_FIX}"
        return _stop(problem, said, fix if local else _DOCKER_FIX)
    missing = _missing_dependency(probe, packages)
    if missing is None:
        return None
    name, package, error = missing
    problem = f"{python} cannot import `{name}`, which `{package}` needs ({error})"
    fix = f"install the project's dependencies into it ({python} -m pip install -e .), or {_FIX}"
    return _stop(problem, said, fix if local else _DOCKER_FIX)


def _missing_dependency(probe: _Probe, packages: list[Package]) -> tuple[str, str, str] | None:
    """(missing module, the project package importing it, the error), if any."""
    own = {package.name for package in packages}
    for package in packages:
        module = probe.modules.get(package.name)
        if module is None or not package.main or not module.missing:
            continue
        top = module.missing.split(".")[0]
        if top not in own and str(module.error).startswith("ModuleNotFoundError"):
            return top, package.name, str(module.error)
    return None


def _leaks(probe: _Probe, packages: list[Package], image: bool = False) -> dict[str, str]:
    """Each project package imported from outside the workspace -> where it came from;
    in coder's image (`image`, which gets the dependencies only), also a package of a
    src layout that is not installed at all."""
    found = {}
    for package in packages:
        module = probe.modules.get(package.name)
        where = module and (module.file or (module.path[0] if module.path else None))
        if where and not is_inside(probe.cwd, where):
            found[package.name] = f"{package.name} from {where}"
        elif module and module.missing == package.name and probe.installed is not None:
            found[package.name] = f"{package.name} {_installed_from(probe.installed)}"
        elif image and module and module.missing == package.name and package.root != ".":
            # Its folder on PYTHONPATH is what an editable install of the copy would give.
            found[package.name] = f"{package.name} is not installed in the sandbox"
    return found


def _installed_from(direct_url: str) -> str:
    """Where an installed project that the sandbox cannot import was installed from."""
    try:
        url = json.loads(direct_url).get("url")
    except (ValueError, AttributeError):
        url = None
    source = f" from {url[:300]}" if isinstance(url, str) else ""
    return f"is installed{source}, which the sandbox hides"


def _import_the_copy(
    session: Session, sandbox: Sandbox, packages: list[Package], leaks: dict[str, str]
) -> tuple[str, ...]:
    """Put the package roots first on PYTHONPATH, in this sandbox and every later one."""
    roots = tuple(dict.fromkeys(package.root for package in packages))
    session.hooks.warn(
        f"the tests would not import the sandbox's copy ({'; '.join(leaks.values())}): "
        f"putting the copy's {', '.join(roots)} first on PYTHONPATH"
    )
    _set_python_path(sandbox, roots)
    session.python_path = roots
    return roots


def _still_outside(
    probe: _Probe | None, packages: list[Package], roots: tuple[str, ...], failure: str
) -> str | None:
    """Why the run stops when, even so, the copy is not what the tests import."""
    left = _leaks(probe, packages) if probe is not None else {}
    if probe is not None and not left:
        return None
    where = "; ".join(left.values()) or failure
    return (
        f"the tests would not test the sandbox's copy ({where}) even with "
        f"{', '.join(roots)} first on PYTHONPATH; reinstall the project with `pip install -e .` "
        "(not `setup.py develop`), or pass --python with an interpreter without it installed"
    )


def _set_python_path(sandbox: Sandbox, roots: tuple[str, ...]) -> None:
    sandbox.set_python_path(roots)
