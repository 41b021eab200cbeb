#!/usr/bin/env bash
# Stops a daemon bench/queue/filled_daemon.sh started in DIR, and the jobs it left running.
# The daemon's SIGTERM leaves its running jobs running, as it should for a lab: the head job (sleep 3600)
# filled_daemon.sh queued is ended here first, by its session (the child of its monitor, which runs from the
# daemon's directory), or every run would leave one behind for an hour. Then the daemon gets SIGTERM and is
# waited for up to 10 s (a zombie answers kill -0 too, where nothing reaps it).
# Usage: bench/queue/stop_daemon.sh DIR   (the DIR given to filled_daemon.sh)
set -uo pipefail
d=$1
for m in $(pgrep -f "^$d/logs/runs/gpusched-spawnd" 2>/dev/null); do
  for c in $(pgrep -P "$m"); do kill -TERM -- "-$c" 2>/dev/null || kill -TERM "$c" 2>/dev/null || true; done
done
[ -f "$d/pid" ] || exit 0
pid=$(cat "$d/pid")
kill "$pid" 2>/dev/null || true
for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
