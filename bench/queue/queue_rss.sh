#!/usr/bin/env bash
# `gpusched queue` against a big queue (issue #27): a real `gpusched serve` on one simulated GPU that a
# running `sleep` holds, QUEUED jobs submitted behind it through the socket (filled_daemon.sh), then:
#   - the daemon's RSS after filling, after each of QUERIES `gpusched queue`, and IDLE seconds later;
#   - each `gpusched queue`'s wall time (the real CLI, JVM start included) and `gpusched --version`'s;
#   - with PROFILE=1, a JFR recording of one more `gpusched queue` and its top frames (the client's
#     own profile: where its wall time goes).
# A benchmark, not a test. Usage: bench/queue/queue_rss.sh QUEUED   env: JAR, QUERIES (3), IDLE (5),
# DAEMON_JAVA_OPTS (extra daemon flags, e.g. -XX:MaxHeapFreeRatio=30), CLIENT_B_OPTS (client flags
# to time against bin/gpusched's, e.g. -Xmn64m), PROFILE, HISTO (1: at the end, after the RSS rows, the daemon's
# heap as it was (GC.heap_info) and its live objects' classes (GC.class_histogram, which collects first),
# the top HISTO_TOP (25) classes and the live bytes per queued job).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
jar="${JAR:-$root/gpusched-cli/target/gpusched.jar}"
queued="${1:-30000}"; queries="${QUERIES:-3}"; idle="${IDLE:-5}"
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
opts=("${jvm_flags[@]}")
d="$(mktemp -d)"; daemon=""
# The daemon is filled_daemon.sh's, not this shell's child: wait for it by polling (at most 10 s).
cleanup() {
  if [ -n "$daemon" ]; then
    kill "$daemon" 2>/dev/null || true
    for _ in $(seq 200); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$d"
}
trap cleanup EXIT
rss() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$daemon/status"; }
. "$root/bench/elapsed.sh" # elapsed_ms: wall time without a timer process
"$root/bench/queue/filled_daemon.sh" "$jar" "$queued" "$d"
daemon=$(cat "$d/pid")
sleep 2
echo "rss_mib after_fill $(rss)"
for i in $(seq "$queries"); do
  t0=$EPOCHREALTIME; java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >"$d/queue.out"; t1=$EPOCHREALTIME; q=$(elapsed_ms "$t0" "$t1")
  t0=$EPOCHREALTIME; java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main --version >/dev/null; t1=$EPOCHREALTIME; v=$(elapsed_ms "$t0" "$t1")
  echo "queue_ms $q version_ms $v lines $(wc -l <"$d/queue.out") rss_mib $(rss)"
  if [ -n "${CLIENT_B_OPTS:-}" ]; then # the same verb with other client flags, interleaved (an A/B of flags)
    t0=$EPOCHREALTIME; java "${opts[@]}" $CLIENT_B_OPTS -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >"$d/queue.b"; t1=$EPOCHREALTIME; q=$(elapsed_ms "$t0" "$t1")
    cmp -s "$d/queue.out" "$d/queue.b" && same=same || same=differs
    echo "queue_ms_with_client_b_opts $q (output $same)"
  fi
done
sleep "$idle"; echo "rss_mib ${idle}s_later $(rss)"
if [ "${HISTO:-0}" = 1 ]; then
  jcmd "$daemon" GC.heap_info | sed -n '2,$p'
  jcmd "$daemon" GC.class_histogram >"$d/histo.txt"
  head -n "$((${HISTO_TOP:-25} + 3))" "$d/histo.txt" | sed -n '2,$p'
  awk -v n="$queued" '/^Total/ {printf "live %.1f MiB in %d objects: %.0f bytes, %.1f objects per queued job\n", $3/1048576, $2, $3/n, $2/n}' "$d/histo.txt"
fi
if [ "${PROFILE:-0}" = 1 ]; then
  java "${opts[@]}" -Xlog:gc:file="$d/gc.log" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >/dev/null
  echo "client gcs $(grep -c 'Pause' "$d/gc.log"), pauses $(grep -o '[0-9.]*ms$' "$d/gc.log" | awk '{s += $1} END {print s}') ms"
  java "${opts[@]}" -XX:StartFlightRecording=filename="$d/q.jfr",settings=profile -cp "$jar" io.gpusched.cli.Main \
    queue --socket "$d/s.sock" >/dev/null 2>&1
  # Top frames by own time, then io.gpusched methods by inclusive time (a sample counts once per method).
  jfr print --stack-depth 96 --events jdk.ExecutionSample "$d/q.jfr" | python3 -c '
import collections, re, sys
own, incl, n, stack = collections.Counter(), collections.Counter(), 0, None
for line in sys.stdin:
    if "stackTrace = [" in line: stack = []
    elif stack is not None and line.strip() in ("]", "...", "]\n"):
        if stack: n += 1; own[stack[0]] += 1; [incl.update([m]) for m in set(stack) if m.startswith("io.gpusched")]
        stack = None
    elif stack is not None: stack.append(re.sub(r"\s+line:.*", "", line.strip()))
for title, c in (("own", own), ("inclusive, io.gpusched", incl)):
    print(f"-- {title} ({n} samples)")
    for m, k in c.most_common(14): print(f"{100 * k / n:5.1f}% {m}")
'
  jfr summary "$d/q.jfr" | awk '/jdk.ExecutionSample/ {print "samples", $2}'
fi
