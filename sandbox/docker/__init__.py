"""The Docker sandbox: DockerSandbox and its config, talking to the engine, file transfer,
set-up images and building coder's image. Imports the stdlib, pydantic, the rest of
`sandbox`, and the docker SDK, which only inside functions, so importing this is cheap.
"""

from sandbox.docker.declared import Declared, read_declared
from sandbox.docker.engine import (
    RUN_LABEL,
    bridge_available,
    check_image_tools,
    connect,
    engine_available,
    engine_list,
    engine_name,
    engine_of,
    no_bridge,
    owner_labels,
    prune,
    require_image,
)
from sandbox.docker.images import DEFAULT_IMAGE, build_from_dockerfile, build_offline
from sandbox.docker.installed import Installed, installed_pins
from sandbox.docker.keys import dependency_files, setup_key
from sandbox.docker.reference import image_reference_problem
from sandbox.docker.sandbox import DockerSandbox, DockerSandboxConfig
from sandbox.docker.setup import (
    SETUP_LABEL,
    SETUP_REPOSITORY,
    SetupResult,
    WheelSet,
    prepare_image,
    prune_setup_images,
)
from sandbox.docker.wheels import (
    ImageFacts,
    WheelsUnavailable,
    download,
    image_facts,
    missing,
    python_problem,
)

__all__ = [
    "RUN_LABEL",
    "WheelsUnavailable",
    "Installed",
    "installed_pins",
    "DEFAULT_IMAGE",
    "SETUP_LABEL",
    "SETUP_REPOSITORY",
    "Declared",
    "DockerSandbox",
    "DockerSandboxConfig",
    "ImageFacts",
    "SetupResult",
    "WheelSet",
    "bridge_available",
    "build_from_dockerfile",
    "build_offline",
    "check_image_tools",
    "connect",
    "dependency_files",
    "download",
    "engine_available",
    "engine_list",
    "engine_name",
    "engine_of",
    "image_facts",
    "image_reference_problem",
    "missing",
    "no_bridge",
    "owner_labels",
    "prepare_image",
    "prune",
    "prune_setup_images",
    "python_problem",
    "read_declared",
    "require_image",
    "setup_key",
]
