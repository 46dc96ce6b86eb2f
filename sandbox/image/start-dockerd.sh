#!/usr/bin/env bash
# Start a Docker engine for coder's tests when none answers: no bridge network, no
# iptables, so no private-range network is ever created. Containers run with network none.
set -euo pipefail
if docker info >/dev/null 2>&1; then
  echo "docker engine already running"
  exit 0
fi
command -v dockerd >/dev/null || { echo "dockerd is missing: apt-get install -y docker.io" >&2; exit 2; }
# A previous engine killed without cleanup leaves a pid file that stops a new one.
pidfile=/var/run/docker.pid
if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  rm -f "$pidfile"
fi
log="${TMPDIR:-/tmp}/coder-dockerd.log"
nohup dockerd --bridge=none --iptables=false --ip-masq=false >"$log" 2>&1 &
echo "started dockerd (pid $!), log at $log"
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && { echo "docker engine ready"; exit 0; }
  sleep 1
done
echo "dockerd did not answer within 60s; see $log" >&2
tail -20 "$log" >&2
exit 1
