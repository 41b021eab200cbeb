#!/usr/bin/env bash
# `gpusched queue` read by another Unix user while a root daemon holds a long queue (issue #28,
# finding 12): a daemon on one simulated GPU, paused so nothing starts, with QUEUED jobs from a jobs
# file; then `gpusched queue` as user `nobody` RUNS times (wall time, exit code, lines printed), and the
# answer's size as a raw client reads it (streamed, and in one line).
# Usage (as root): bench/service/queue_scale.sh [JAR] [QUEUED] [RUNS]
#   JAR defaults to this tree's gpusched-cli/target/gpusched.jar (mvn -DskipTests package -pl gpusched-cli -am);
#   QUEUED to 100000, RUNS to 5. The JVM flags are bin/gpusched's.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
jar="${1:-$root/gpusched-cli/target/gpusched.jar}"
queued="${2:-100000}"
runs="${3:-5}"
[ "$(id -u)" = 0 ] || { echo "queue_scale.sh: run it as root (it reads the queue as user nobody)" >&2; exit 2; }
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
opts=("${jvm_flags[@]}")
dir="$(mktemp -d)"
chmod 755 "$dir"
cp "$jar" "$dir/gpusched.jar"
chmod 644 "$dir/gpusched.jar"
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$dir"' EXIT
gs() { java "${opts[@]}" -jar "$dir/gpusched.jar" "$@"; }
: >"$dir/jobs.txt"
java "${opts[@]}" -jar "$dir/gpusched.jar" serve --jobs "$dir/jobs.txt" --sim 1 --socket "$dir/s.sock" \
  --log-dir "$dir/logs" >"$dir/daemon.log" 2>&1 &
daemon=$!
until gs queue --socket "$dir/s.sock" >/dev/null 2>&1; do sleep 0.2; done
gs pause --socket "$dir/s.sock" 0 >/dev/null
python3 -c "
for i in range(1, $queued + 1): print(f'[vram=1G] python sweep.py --seed {i}')" >"$dir/jobs.tmp"
mv "$dir/jobs.tmp" "$dir/jobs.txt"
# Until the daemon has them all: its answer's head says how many are pending (the one-line answer's
# board holds only what fits once the queue is long, so its left_out counts the rest).
cat >"$dir/raw.py" <<'EOF'
import json, socket, sys, time
start = time.time()
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile('rb')
stream = sys.argv[2] == 'stream'
s.sendall(b'{"v":1,"op":"queue","stream":true}\n' if stream else b'{"v":1,"op":"queue"}\n')
head = f.readline()
h = json.loads(head)
if not h.get('ok'):
    print(json.dumps(h)); sys.exit(1)
n = h.get('lines', 0)
sizes = [len(head)] + [len(f.readline()) for _ in range(n)]
pending = len(h['snapshot']['board']['pending']) + h.get('left_out', {}).get('pending', 0) + h.get('rows', {}).get('pending', 0)
print(f"{'streamed' if stream else 'one line'}: {len(sizes)} lines, {sum(sizes)} bytes, the longest {max(sizes)} bytes,"
      f" {pending} pending, {time.time() - start:.2f} s")
EOF
until python3 "$dir/raw.py" "$dir/s.sock" one 2>/dev/null | grep -q " $queued pending"; do sleep 1; done
echo "jar: $jar; $queued jobs queued"
python3 "$dir/raw.py" "$dir/s.sock" stream || true
python3 "$dir/raw.py" "$dir/s.sock" one || true
for i in $(seq "$runs"); do
  start=$(date +%s%N)
  code=0
  setpriv --reuid=nobody --regid=nogroup --clear-groups java "${opts[@]}" -jar "$dir/gpusched.jar" queue \
    --socket "$dir/s.sock" >"$dir/out.txt" 2>"$dir/err.txt" || code=$?
  end=$(date +%s%N)
  echo "gpusched queue as nobody: $(( (end - start) / 1000000 )) ms, exit $code, $(wc -l <"$dir/out.txt") lines printed$(
    [ -s "$dir/err.txt" ] && echo ", stderr: $(head -c 200 "$dir/err.txt")")"
done
echo "daemon RSS: $(( $(ps -o rss= -p "$daemon") / 1024 )) MiB"
