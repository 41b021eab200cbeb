#!/usr/bin/env bash
# Where `gpusched queue`'s time goes with a big queue (issue #27): a real `gpusched serve --jobs FILE`
# on one simulated GPU that the file's first job holds, QUEUED jobs pending behind it (loaded from the
# file, not submitted: seconds, not minutes), then ROUNDS times, interleaved:
#   - a raw client asking for the list's text on the socket, in chunks (CHUNKS=1, the default, as
#     `gpusched queue` asks; CHUNKS=0: after a head counting its bytes, as before chunks): ms to the text's
#     start (the head line; in chunks, the first chunk) and ms to its last byte;
#   - `gpusched queue` to a file and `gpusched --version` (the real CLI, JVM start included);
# then the daemon's RSS. A benchmark, not a test. Usage: bench/queue/text_phases.sh QUEUED
# env: JAR, ROUNDS (5), LAYOUT (list; or table), CHUNKS (1; or 0), DAEMON_JAVA_OPTS (e.g. a JFR recording of the daemon).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
jar="${JAR:-$root/gpusched-cli/target/gpusched.jar}"
queued="${1:-100000}"; rounds="${ROUNDS:-5}"; layout="${LAYOUT:-list}"; chunks="${CHUNKS:-1}"
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
opts=("${jvm_flags[@]}")
d="$(mktemp -d)"; daemon=""
cleanup() { [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
. "$root/bench/elapsed.sh" # elapsed_ms: wall time without a timer process
{ echo '[vram=20G] sleep 3600'; seq "$queued" | sed 's/^/[vram=20G] echo queued /'; } >"$d/jobs.txt"
java "${opts[@]}" ${DAEMON_JAVA_OPTS:-} -cp "$jar" io.gpusched.cli.Main serve --jobs "$d/jobs.txt" --sim 1 --socket "$d/s.sock" \
  --log-dir "$d/logs" >"$d/daemon.log" 2>&1 &
daemon=$!
until java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" 2>/dev/null | head -1 \
  | grep -q "1 running, $queued pending"; do sleep 0.5; done
echo "rss_mib loaded $(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$daemon/status")"
for i in $(seq "$rounds"); do
  python3 - "$d/s.sock" "$layout" "$chunks" <<'PY'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rb')
t0 = time.perf_counter()
text = {"layout": sys.argv[2]}
if sys.argv[3] == "1": text["chunks"] = True
s.sendall((json.dumps({"v": 1, "op": "queue", "stream": True, "text": text}) + "\n").encode())
head = json.loads(f.readline()); t1 = time.perf_counter()
if head.get("text_chunks"):  # length-prefixed chunks, rendered once; "0" ends them
    n, first = 0, None
    while True:
        k = int(f.readline())
        if k == 0: break
        if first is None: first = time.perf_counter()
        if len(f.read(k)) != k: sys.exit("ended early")
        n += k
    t1 = first or t1
else:
    n = head.get("text_bytes")
    if n is None: print("raw answered with rows, not text (a daemon from before #27's text at any size)"); sys.exit(0)
    left = n
    while left > 0:
        b = f.read(min(left, 1 << 20))
        if not b: sys.exit("ended early")
        left -= len(b)
t2 = time.perf_counter()
print(f"raw head_ms {(t1 - t0) * 1e3:.0f} all_ms {(t2 - t0) * 1e3:.0f} bytes {n} chunks {int(bool(head.get('text_chunks')))}")
PY
  t0=$EPOCHREALTIME; java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >"$d/queue.out"; t1=$EPOCHREALTIME; q=$(elapsed_ms "$t0" "$t1")
  t0=$EPOCHREALTIME; java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main --version >/dev/null; t1=$EPOCHREALTIME; v=$(elapsed_ms "$t0" "$t1")
  echo "queue_ms $q version_ms $v lines $(wc -l <"$d/queue.out")"
done
echo "rss_mib after $(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$daemon/status")"
