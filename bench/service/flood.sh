#!/usr/bin/env bash
# Connection floods against a `gpusched serve --sim 1` daemon run by root (issue #28, finding 11):
# the daemon's RSS (VmRSS, VmHWM) and thread count (/proc/PID/task) at rest, with 3,000 idle
# connections, and with 200 connections each holding a partial 1 MiB request line, all opened by one
# other user (gs-cn-flood, created and removed here); and meanwhile the latency of root's `queue`
# request (raw protocol round trip, connect included, max and median of 5; and the CLI verb once,
# JVM start included).
#
# usage (as root): bench/service/flood.sh [CHECKOUT] [-- SERVE_OPTIONS...]
#   CHECKOUT: a compiled checkout (mvn -o -q -DskipTests compile -pl gpusched-cli -am) [this one]
#   SERVE_OPTIONS: more options for serve, e.g. --max-connections-per-user 4000
# The daemon runs with bin/gpusched's JVM flags; this script raises its own open-file limit (the
# daemon inherits it) to 8192 where the hard limit allows.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then root="$(cd "$1" && pwd)"; shift; fi
[ "${1:-}" = "--" ] && shift
extra=("$@")
m2="${HOME}/.m2/repository"
cp="$(printf '%s:' "$root"/gpusched-{cli,core,nvml,testkit,slurm,picocli}/target/classes)"
cp+="$(ls "$m2"/com/fasterxml/jackson/core/jackson-core/2.22.4/jackson-core-2.22.4.jar):$(ls "$m2"/net/java/dev/jna/jna/5.19.1/jna-5.19.1.jar)"
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
user=gs-cn-flood
made_user=0
if ! id "$user" >/dev/null 2>&1; then useradd --no-create-home --user-group --shell /bin/sh "$user"; made_user=1; fi
dir="$(mktemp -d)"
chmod 755 "$dir"
sock="$dir/run/gpusched.sock"
. "$here/../jvm_flags.sh" # bin/gpusched's JVM flags (this checkout's), into jvm_flags
java_opts=("${jvm_flags[@]}")
daemon=""
start_daemon() { # a fresh daemon per scenario, so one's leftovers do not weigh on the next
  rm -rf "$dir/run" "$dir/logs"
  java "${java_opts[@]}" -cp "$cp" io.gpusched.cli.Main serve --sim 1 --poll 1 --socket "$sock" \
    --log-dir "$dir/logs" "${extra[@]}" >"$dir/daemon.log" 2>&1 &
  daemon=$!
  for _ in $(seq 300); do [[ "$(probe 2>/dev/null || true)" =~ ^[0-9] ]] && break; sleep 0.2; done
}
stop_daemon() {
  kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true
}
cleanup() {
  exec 3>&- 2>/dev/null || true
  stop_daemon
  [ "$made_user" = 1 ] && userdel "$user" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

probe() { # one queue round trip as root, in ms
  python3 - "$sock" <<'PY'
import socket, sys, time
t = time.monotonic()
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'{"v":1,"op":"queue"}\n')
buf = b""
while not buf.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    buf += chunk
ok = b'"ok":true' in buf
print(f"{(time.monotonic() - t) * 1000:.1f}" if ok else "failed:" + buf[:200].decode(errors="replace"))
PY
}

report() {
  local rss hwm threads lat cli_start cli_ms
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$daemon/status"); hwm=$(awk '/VmHWM/ {print $2}' "/proc/$daemon/status")
  threads=$(ls "/proc/$daemon/task" | wc -l)
  lat=()
  for _ in 1 2 3 4 5; do lat+=("$(probe)"); done
  cli_start=$(date +%s%N)
  java "${java_opts[@]}" -cp "$cp" io.gpusched.cli.Main queue --socket "$sock" >/dev/null 2>&1 \
    && cli_ms=$(( ($(date +%s%N) - cli_start) / 1000000 )) || cli_ms="failed"
  printf '%-34s VmRSS %4d MiB  VmHWM %4d MiB  threads %5d  queue round trip ms: max %s median %s  (CLI verb %s ms)\n' \
    "$1" $((rss / 1024)) $((hwm / 1024)) "$threads" \
    "$(printf '%s\n' "${lat[@]}" | sort -g | tail -1)" "$(printf '%s\n' "${lat[@]}" | sort -g | sed -n 3p)" "$cli_ms"
}

flood() { # $1 label, $2 count, $3 partial bytes (0 = idle)
  local fifo="$dir/hold"
  rm -f "$fifo"; mkfifo "$fifo"
  setpriv --reuid="$user" --regid="$user" --init-groups /usr/bin/python3 "$here/flood_client.py" "$sock" "$2" "$3" \
    <"$fifo" >"$dir/flood.out" 2>&1 &
  local client=$!
  exec 3>"$fifo"
  until grep -q ready "$dir/flood.out" 2>/dev/null || ! kill -0 "$client" 2>/dev/null; do sleep 0.1; done
  echo "  flood: $(head -1 "$dir/flood.out")"
  report "$1"
  exec 3>&-
  wait "$client" || true
  sleep 2
}

echo "checkout: $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))  serve options: ${extra[*]:-(defaults)}"
echo "open-file limit: $(ulimit -n)"
start_daemon
report "at rest"
flood "3000 idle connections" 3000 0
stop_daemon
start_daemon
report "at rest (a fresh daemon)"
flood "200 partial 1 MiB lines" 200 1048576
stop_daemon
