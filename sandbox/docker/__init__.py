"""The Docker sandbox: DockerSandbox and its config, talking to the engine, file transfer,
set-up images and building coder's image. Imports the stdlib, pydantic, the rest of
`sandbox`, and the docker SDK, which only inside functions, so importing this is cheap.
"""

from sandbox.docker.engine import (
    check_image_tools,
    connect,
    engine_available,
    owner_labels,
    prune,
    require_image,
)
from sandbox.docker.images import DEFAULT_IMAGE, build_from_dockerfile, build_offline
from sandbox.docker.reference import image_reference_problem
from sandbox.docker.sandbox import DockerSandbox, DockerSandboxConfig
from sandbox.docker.setup import (
    SETUP_LABEL,
    SETUP_REPOSITORY,
    SetupResult,
    dependency_files,
    prepare_image,
    prune_setup_images,
    setup_key,
)

__all__ = [
    "DEFAULT_IMAGE",
    "SETUP_LABEL",
    "SETUP_REPOSITORY",
    "DockerSandbox",
    "DockerSandboxConfig",
    "SetupResult",
    "build_from_dockerfile",
    "build_offline",
    "check_image_tools",
    "connect",
    "dependency_files",
    "engine_available",
    "image_reference_problem",
    "owner_labels",
    "prepare_image",
    "prune",
    "prune_setup_images",
    "require_image",
    "setup_key",
]
