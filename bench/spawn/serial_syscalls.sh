#!/usr/bin/env bash
# What one serial job costs the scheduler in fsyncs and status-board rewrites (issue #27, item 3), for
# two checkouts, interleaved: each round runs 30 jobs `[vram=22G] date +%s%N >> FILE` on one simulated
# 24000 MiB GPU (strictly one at a time, as bench/vs_tsp.py's serial row) under `perf stat`, counting
# the fdatasync and rename calls of the whole process tree (the journal's fsyncs; the status files'
# temp-file renames), its task-clock (CPU ms, JVM start included), and the run's median start-to-start
# gap. The counts do not depend on the machine's load; the gap and the CPU do.
#
# usage: bench/spawn/serial_syscalls.sh A_ROOT B_ROOT [ROUNDS]   (each root built: ROOT/bin/gpusched --version;
#        needs perf with the syscalls tracepoints, i.e. run as root)
#
# Figures (2026-11-26 07:45 UTC, `bench/spawn/serial_syscalls.sh /tmp/perjob-base /tmp/perjob-new 5`, the
# shared 2-core VM at load average 11-16 while other helpers built and ran tests, so the gaps and CPU are
# several times a quiet machine's; A = 7a0f9b2 built, B = s27-perjob at 8087dc9 built; 5 rounds, median [min-max]):
#   fdatasync per 30-job run: A 61 every round, B 32 every round (two per job -> one: the outcome rides
#                             with the next start's fsync)
#   rename per 30-job run:    A 64-66, B 18-32 (two per round -> the paced board, at most one pair per 100 ms)
#   median start-to-start gap: A 75.6 [49.2-101.4] ms, B 47.9 [33.7-49.2] ms
#   task-clock of the run (30 jobs, JVM start included): A 1,642 [1,411-1,826] ms, B 1,453 [1,398-1,623] ms
set -euo pipefail
a=$1 b=$2 rounds=${3:-3}
work=$(mktemp -d /tmp/gpusched-serial-syscalls-XXXX)
trap 'rm -rf "$work"' EXIT
for i in $(seq "$rounds"); do
  for root in "$a" "$b"; do
    stamps="$work/stamps"
    rm -f "$stamps"
    for _ in $(seq 30); do echo "[vram=22G] date +%s%N >> $stamps"; done >"$work/serial.txt"
    perf stat -x, -e 'syscalls:sys_enter_fdatasync,syscalls:sys_enter_rename,task-clock' -o "$work/perf.csv" \
      "$root/bin/gpusched" "$work/serial.txt" --sim 1 --fresh --log-dir "$work/logs" >/dev/null 2>&1
    gap=$(python3 -c "import statistics,sys; t=[int(x) for x in open(sys.argv[1]).read().split()]; \
print('%.2f' % statistics.median((b-a)/1e6 for a,b in zip(t,t[1:])))" "$stamps")
    counts=$(awk -F, '/fdatasync|rename|task-clock/ {printf "%s=%s ", $3, $1}' "$work/perf.csv")
    echo "round $i $root: gap ${gap} ms; $counts"
  done
done
