"""The environment variables coder reads: `LLM_*` and `CODER_<SETTING>` for the settings,
and a few of its own; and a warning for a `CODER_*` variable that is none of them (a
typo such as CODER_MAXTURNS would otherwise be ignored without a word)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

ENV_ALIASES = {"LLM_BASE_URL": "base_url", "LLM_API_KEY": "api_key", "LLM_MODEL": "model"}
OWN_VARIABLES = frozenset(
    {"CODER_CONFIG", "CODER_REQUIRE_DOCKER", "CODER_TEST_IMAGE", "CODER_TEST_APPLY_PAUSE"}
    | {"CODER_SECOND_DOCKER_HOST"}  # tests of several engines (.ci/run starts it)
    | {"CODER_REBUILD", "CODER_DEBIAN_SUITE"}  # sandbox/image/build-offline.sh
)
"""coder's variables that are no setting: its config file, its tests', its image build's."""
INSIDE_SANDBOX = ("CODER_PYTEST", "CODER_MUTANTS", "CODER_PROBE", "CODER_HELPER")
"""Prefixes of what coder sets for its helpers inside a sandbox (not the user's to set)."""


def setting_variables(settings: Iterable[str]) -> dict[str, str]:
    """Each environment variable that sets a setting -> that setting."""
    names = dict(ENV_ALIASES)
    names.update({f"CODER_{name.upper()}": name for name in settings})
    return names


def unknown_variables(environ: Mapping[str, str], settings: Iterable[str]) -> list[str]:
    """One warning per `CODER_*` variable coder does not read, naming the closest one."""
    known = sorted(n for n in set(setting_variables(settings)) | OWN_VARIABLES if n[:6] == "CODER_")
    warnings = []
    for name in sorted(environ):
        if not name.startswith("CODER_") or name in known or name.startswith(INSIDE_SANDBOX):
            continue
        close = difflib.get_close_matches(name[6:], [k[6:] for k in known], n=1, cutoff=0.6)
        hint = f"did you mean CODER_{close[0]}?" if close else "`coder doctor` lists the settings"
        warnings.append(
            f"{name} is set but coder reads no such variable, so it is ignored ({hint})"
        )
    return warnings
