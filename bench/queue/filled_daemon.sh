#!/usr/bin/env bash
# A `gpusched serve` (bin/gpusched's JVM flags) on one simulated 24000 MiB GPU held by a running `sleep`,
# filled with N submissions through the socket (8 connections pipelining, bench/daemon_client.py's `fill`:
# the journal's pace), left running. The one place the lab-scale benchmarks start a filled daemon:
# bench/lab_scale.sh, bench/lab_profile.sh and queue_rss.sh call it; verb_ab.sh / client_timeline.sh use it.
# Prints `fill N SECONDS`. Its socket is DIR/s.sock, its pid in DIR/pid, its log DIR/daemon.log; stop it with
# `kill $(cat DIR/pid)`. Issue #27.
# Usage: bench/queue/filled_daemon.sh JAR N DIR   (DIR absolute; emptied first)   env: DAEMON_JAVA_OPTS
set -euo pipefail
jar=$1; n=$2; d=$3
root="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$d"; mkdir -p "$d"
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
opts=("${jvm_flags[@]}")
echo '[vram=20G] sleep 3600' >"$d/jobs.txt"
# setsid: the daemon outlives this script and a ^C of the caller's terminal.
setsid java "${opts[@]}" ${DAEMON_JAVA_OPTS:-} -cp "$jar" io.gpusched.cli.Main serve --jobs "$d/jobs.txt" --sim 1 \
  --socket "$d/s.sock" --log-dir "$d/logs" >"$d/daemon.log" 2>&1 </dev/null &
echo $! >"$d/pid"
until java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >/dev/null 2>&1; do
  kill -0 "$(cat "$d/pid")" 2>/dev/null || { echo "filled_daemon.sh: the daemon exited; see $d/daemon.log" >&2; exit 2; }
  sleep 0.2
done
(cd "$d" && python3 "$root/bench/daemon_client.py" "$d/s.sock" fill "$n")
