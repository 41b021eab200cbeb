#!/usr/bin/env bash
# The daemon at lab scale (issue #27, item 2): a real `gpusched serve` on one simulated 24000 MiB GPU
# that a running `sleep` holds, with QUEUED jobs submitted behind it through the socket, beside
# task-spooler's `tsp` in the same run. For each QUEUED (default: 10000 and 100000) it prints:
#   - the time to queue them (one client, 8 connections pipelining submissions: the journal's pace);
#   - submit round trip median and p99 (one client, TRIPS sequential submissions on one connection,
#     each answered once its line is fsynced), and the same for `tsp true` behind a running `sleep`;
#   - submissions/s from 10 concurrent clients (100 each);
#   - `gpusched queue` wall time against `gpusched --version` and `tsp -l`, each as a user runs it: through
#     the launcher of the checkout the jar is in (bin/gpusched: its class-data archive, and for queue its
#     native client where it has one), after one untimed call of each (an archive made at first use);
#     CLI=PATH names another launcher, CLI=java the jar's Java client with bin/gpusched's flags;
#   - the daemon's RSS with the queue held, and its CPU over IDLE seconds with nothing happening.
# A benchmark, not a test: noisy machines give noisy figures; run it several times (RUNS) and take
# medians. Usage: bench/lab_scale.sh [QUEUED...]   env: RUNS (1), TRIPS (1000), IDLE (10), JAR,
# DAEMON_JAVA_OPTS (e.g. -XX:StartFlightRecording=filename=/tmp/d.jfr to profile the daemon), CLI.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jar="${JAR:-$root/gpusched-cli/target/gpusched.jar}"
[ -f "$jar" ] || { echo "lab_scale.sh: $jar missing; build it: mvn -DskipTests package -pl gpusched-cli -am" >&2; exit 2; }
tsp_bin="$(command -v tsp || command -v ts || true)"
[ -n "$tsp_bin" ] || { echo "lab_scale.sh: task-spooler missing; apt-get install -y task-spooler" >&2; exit 2; }
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000)
runs="${RUNS:-1}"; trips="${TRIPS:-1000}"; idle="${IDLE:-10}"
# bin/gpusched's JVM flags.
. "$root/bench/jvm_flags.sh"
opts=("${jvm_flags[@]}")
launcher="$(cd "$(dirname "$jar")/../.." && pwd)/bin/gpusched"
cli="${CLI:-$([ -x "$launcher" ] && echo "$launcher" || echo java)}"
if [ "$cli" = java ]; then cli=(java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main); else cli=("$cli"); fi
work="$(mktemp -d)"
daemon=""
# The daemon is filled_daemon.sh's child, not this shell's: bench/queue/stop_daemon.sh ends its head job
# and waits for it by polling.
stop_daemon() {
  [ -n "$daemon" ] || return 0
  "$root/bench/queue/stop_daemon.sh" "$d"
  daemon=""
}
cleanup() { stop_daemon; rm -rf "$work"; }
trap cleanup EXIT

client=(python3 "$root/bench/daemon_client.py")

. "$root/bench/elapsed.sh" # elapsed_ms: wall time without a timer process
median() { python3 -c "import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

tsp_trips() { # $1: how many; tsp true behind a running sleep, one client process each (its own limit)
  local d; d="$(mktemp -d "$work/tsp.XXXX")"
  export TS_SOCKET="$d/socket" TS_SAVELIST_DIR="$d" TMPDIR="$d"
  "$tsp_bin" -K >/dev/null 2>&1 || true
  "$tsp_bin" -S 1 >/dev/null; "$tsp_bin" sleep 3600 >/dev/null
  python3 - "$tsp_bin" "$1" <<'EOF'
import subprocess, sys, time, statistics
rt = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter(); subprocess.run([sys.argv[1], "true"], stdout=subprocess.DEVNULL, check=True)
    rt.append(time.perf_counter() - t0)
rt.sort()
print(f"tsp_true median_ms {statistics.median(rt) * 1e3:.2f} p99_ms {rt[int(len(rt) * 0.99)] * 1e3:.2f}")
EOF
  local t0 t1; t0=$EPOCHREALTIME; "$tsp_bin" -l >/dev/null; t1=$EPOCHREALTIME; echo "tsp_l_ms $(elapsed_ms "$t0" "$t1")"
  "$tsp_bin" -k >/dev/null 2>&1 || true # its running sleep 3600, which -K leaves running
  "$tsp_bin" -K >/dev/null 2>&1 || true
  unset TS_SOCKET TS_SAVELIST_DIR TMPDIR
}

for run in $(seq "$runs"); do
  for queued in "${sizes[@]}"; do
    d="$work/q$queued"
    echo "== run $run, $queued queued (jar $jar, client ${cli[0]})"
    "$root/bench/queue/filled_daemon.sh" "$jar" "$queued" "$d"
    daemon=$(cat "$d/pid")
    (cd "$d" && "${client[@]}" "$d/s.sock" trips "$trips")
    (cd "$d" && "${client[@]}" "$d/s.sock" clients)
    q=(); v=()
    "${cli[@]}" queue --socket "$d/s.sock" >/dev/null; "${cli[@]}" --version >/dev/null
    for _ in 1 2 3 4 5; do
      t0=$EPOCHREALTIME; "${cli[@]}" queue --socket "$d/s.sock" >"$d/queue.out"; t1=$EPOCHREALTIME; q+=("$(elapsed_ms "$t0" "$t1")")
      t0=$EPOCHREALTIME; "${cli[@]}" --version >/dev/null; t1=$EPOCHREALTIME; v+=("$(elapsed_ms "$t0" "$t1")")
    done
    echo "queue_ms $(median "${q[@]}") version_ms $(median "${v[@]}") queue_lines $(wc -l <"$d/queue.out")"
    echo "rss_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$daemon/status")"
    sleep 2
    c0=$(cpu_ticks "$daemon"); sleep "$idle"; c1=$(cpu_ticks "$daemon")
    echo "idle_cpu_ms_per_s $(python3 -c "print(f'{($c1 - $c0) * 1000 / $(getconf CLK_TCK) / $idle:.1f}')")"
    stop_daemon
    tsp_trips "$trips"
  done
done
