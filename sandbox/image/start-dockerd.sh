#!/usr/bin/env bash
# Start a Docker engine for coder's tests: no bridge network, no iptables, so no
# private-range network is ever created. Containers run with network none.
#
#   start-dockerd.sh                 the default engine (/var/run/docker.sock), unless one answers
#   start-dockerd.sh NAME [ARGS...]  one more engine on its own socket, data root, exec root and
#                                    pidfile (unix:///run/coder-NAME.sock, /var/lib/coder-NAME,
#                                    /run/coder-NAME, /run/coder-NAME.pid); ARGS go to dockerd
#                                    (e.g. a TLS listener: -H tcp://127.0.0.1:PORT --tlsverify ...).
#                                    Its last line is its DOCKER_HOST; stop it with
#                                    `kill $(cat /run/coder-NAME.pid)`.
set -euo pipefail
command -v dockerd >/dev/null || { echo "dockerd is missing: apt-get install -y docker.io" >&2; exit 2; }
name="${1:-}"
if [ -z "$name" ]; then
  if docker info >/dev/null 2>&1; then
    echo "docker engine already running"
    exit 0
  fi
  pidfile=/var/run/docker.pid
  host=""
  options=()
  log="${TMPDIR:-/tmp}/coder-dockerd.log"
else
  shift
  case "$name" in *[!a-zA-Z0-9_-]*) echo "engine name: letters, digits, - and _ only" >&2; exit 2;; esac
  run="/run/coder-$name"
  pidfile="$run.pid"
  host="unix://$run.sock"
  if docker -H "$host" info >/dev/null 2>&1; then
    echo "docker engine $name already running"
    echo "$host"
    exit 0
  fi
  mkdir -p "$run" "/var/lib/coder-$name"
  options=(-H "$host" --data-root "/var/lib/coder-$name" --exec-root "$run" --pidfile "$pidfile" "$@")
  log="${TMPDIR:-/tmp}/coder-$name-dockerd.log"
fi
# A previous engine killed without cleanup leaves a pid file that stops a new one.
if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  rm -f "$pidfile"
fi
nohup dockerd --bridge=none --iptables=false --ip-masq=false "${options[@]}" >"$log" 2>&1 &
echo "started dockerd ${name:-default} (pid $!), log at $log"
for _ in $(seq 1 60); do
  if docker ${host:+-H "$host"} info >/dev/null 2>&1; then
    echo "docker engine ready"
    [ -z "$host" ] || echo "$host"
    exit 0
  fi
  sleep 1
done
echo "dockerd did not answer within 60s; see $log" >&2
tail -20 "$log" >&2
exit 1
