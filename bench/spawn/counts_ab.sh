#!/usr/bin/env bash
# What 200 trivial jobs cost two checkouts in things that do not depend on the machine's load (issue #27,
# item 3): `perf stat` over the whole process tree of `ROOT/bin/gpusched FILE --sim 2 --fresh` on 200
# `[vram=1G] true` lines, interleaved A/B per round: syscalls, page faults, context switches, processes
# forked (clone/clone3) and execs, fdatasyncs (about one per round that started or ended a job); and task-clock (CPU ms, JVM start included), which does.
# Prints each round's line per checkout; per-job figures are the line's / 200.
# usage: bench/spawn/counts_ab.sh A_ROOT B_ROOT [ROUNDS]   (each root built; needs perf with syscall tracepoints: root)
set -euo pipefail
a=$1 b=$2 rounds=${3:-3}
work=$(mktemp -d /tmp/gpusched-counts-XXXX)
trap 'rm -rf "$work"' EXIT
printf '[vram=1G] true\n%.0s' $(seq 200) >"$work/t200.txt"
for i in $(seq "$rounds"); do
  for root in "$a" "$b"; do
    perf stat -x, -e 'raw_syscalls:sys_enter,page-faults,context-switches,task-clock,syscalls:sys_enter_clone,syscalls:sys_enter_clone3,syscalls:sys_enter_execve,syscalls:sys_enter_fdatasync' \
      -o "$work/perf.csv" "$root/bin/gpusched" "$work/t200.txt" --sim 2 --fresh --log-dir "$work/logs" >/dev/null 2>&1
    echo "round $i $root: $(awk -F, '/sys_enter|faults|switches|task-clock/ {sub(/^syscalls:sys_enter_|^raw_syscalls:/, "", $3); printf "%s=%s ", $3, $1}' "$work/perf.csv")"
  done
done
