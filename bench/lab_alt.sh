#!/usr/bin/env bash
# Issue #24's A/B of the real daemon's lone-client submit round trip: two `gpusched serve` daemons, one from
# each jar, each filled with QUEUED submissions behind a running job (bench/queue/filled_daemon.sh), then
# bench/daemon_alternate.py sends TRIPS submissions to each, one at a time in turn, so both see the same
# load at each moment. lab_scale.sh's `rt` measures each daemon in a run of its own, minutes apart: on a
# shared machine that compares two loads as much as two daemons. Both daemons are started afresh for each
# of RUNS runs, the base's first in odd runs and the final's first in even ones.
# A daemon that runs a long round meanwhile (a1475ce's deferred plans over its queue) slows the other's trips
# too: such a run shows in both medians, and is kept (it is what the base does); a1475ce, its trips spaced by
# the other daemon's, fell into that mode in 5 of 5 runs on 2026-11-28, and bench/current.py then leaves the
# rows unjudged (bench/all_rows.py notes how many runs had the base's median over 10 ms).
# Prints per run: `alt run I base median_ms M p99_ms P` and the same for `final`.
# Usage: bench/lab_alt.sh BASE_JAR FINAL_JAR   env: QUEUED (10000), TRIPS (300), RUNS (3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base_jar=$1; final_jar=$2
queued="${QUEUED:-10000}"; trips="${TRIPS:-300}"; runs="${RUNS:-3}"
work="$(mktemp -d)"
cleanup() { for w in base final; do "$root/bench/queue/stop_daemon.sh" "$work/$w"; done; rm -rf "$work"; }
trap cleanup EXIT
for run in $(seq "$runs"); do
  order=(base final); [ $((run % 2)) = 0 ] && order=(final base)
  for w in "${order[@]}"; do
    jar=$base_jar; [ "$w" = final ] && jar=$final_jar
    "$root/bench/queue/filled_daemon.sh" "$jar" "$queued" "$work/$w" >/dev/null
  done
  (cd "$work/final" && python3 "$root/bench/daemon_alternate.py" "$work/base/s.sock" "$work/final/s.sock" "$trips") \
    | sed -e "s|^$work/base/s.sock|alt run $run base|" -e "s|^$work/final/s.sock|alt run $run final|"
  for w in base final; do "$root/bench/queue/stop_daemon.sh" "$work/$w"; done
done
