#!/usr/bin/env bash
# Build coder's sandbox image without a registry: a Debian root filesystem made by
# debootstrap (python3 with pip and venv, pytest, coverage, git), imported with `docker import`.
# Usage: sandbox/image/build-offline.sh [IMAGE]   (default: coder-sandbox:latest)
set -euo pipefail
image="${1:-coder-sandbox:latest}"
suite="${CODER_DEBIAN_SUITE:-bookworm}"

if docker image inspect "$image" >/dev/null 2>&1 && [ -z "${CODER_REBUILD:-}" ]; then
  # An image built before pip was part of it cannot install a project's dependencies.
  if docker run --rm --network none "$image" python3 -m pip --version >/dev/null 2>&1; then
    echo "image $image already present (set CODER_REBUILD=1 to rebuild)"
    exit 0
  fi
  echo "image $image has no pip: rebuilding it"
fi
command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install -y debootstrap" >&2; exit 2; }

rootfs=$(mktemp -d /tmp/coder-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
echo "debootstrap $suite into $rootfs (a few minutes)"
debootstrap --variant=minbase --include=python3,python3-pip,python3-venv,python3-pytest,python3-coverage,git \
  "$suite" "$rootfs" >"$rootfs.log" 2>&1 || { tail -30 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
# A non-root user for commands, and a workspace it owns.
chroot "$rootfs" /usr/sbin/useradd --uid 1000 --create-home --shell /bin/sh coder
mkdir -p "$rootfs/workspace" && chown 1000:1000 "$rootfs/workspace"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  --change 'CMD ["sleep", "infinity"]' --change 'WORKDIR /workspace' \
  --change 'ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1' - "$image"
echo "built $image"
