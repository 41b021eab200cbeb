#!/usr/bin/env bash
# What answers that are never read hold in a root daemon (SECURITY.md, Limits): a `gpusched serve` filled
# with N queued jobs (bench/queue/filled_daemon.sh), then, for each form of the queue's answer (the rows
# streamed, the list text streamed in pieces, the answer in one line), one other user (nobody, through
# setpriv) opens as many connections as its cap allows (64), sends the request on each with a 4 KiB
# receive buffer and reads nothing for 8 s. Prints the daemon's VmRSS before and while they wait, and
# root's `queue` round trip meanwhile.
# usage (as root): bench/service/unread.sh [N=100000] [CONNECTIONS=64]   (from a built checkout)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
n="${1:-100000}"; conns="${2:-64}"
dir="$(mktemp -d)"; chmod 755 "$dir"
trap 'kill "$(cat "$dir/pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dir"' EXIT
bash "$root/bench/queue/filled_daemon.sh" "$root/gpusched-cli/target/gpusched.jar" "$n" "$dir/d" >/dev/null
cp "$dir/d/pid" "$dir/pid"; pid="$(cat "$dir/pid")"; sock="$dir/d/s.sock"
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status"; }
cat >"$dir/unread.py" <<'PY'
import socket, sys, time
sock, form, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
req = {"rows": b'{"v":1,"op":"queue","stream":true}\n',
       "text": b'{"v":1,"op":"queue","stream":true,"text":{"layout":"list","chunks":true}}\n',
       "one-line": b'{"v":1,"op":"queue"}\n'}[form]
held = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); s.connect(sock)
    s.sendall(req); held.append(s)
time.sleep(8)
PY
chmod 644 "$dir/unread.py"
probe() {
  python3 - "$sock" <<'PY'
import socket, sys, time
t = time.monotonic(); s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'{"v":1,"op":"hello"}\n')
buf = b""
while not buf.endswith(b"\n"):
    c = s.recv(65536)
    if not c: break
    buf += c
print(f"{(time.monotonic() - t) * 1000:.1f}")
PY
}
echo "unread.sh: $n queued, $conns connections of nobody's each; VmRSS at rest $(rss) MiB"
for form in rows text one-line; do
  setpriv --reuid nobody --regid nogroup --clear-groups /usr/bin/python3 "$dir/unread.py" "$sock" "$form" "$conns" & p=$!
  sleep 5
  printf '%-9s VmRSS %4d MiB while unread; root hello round trip %s ms\n' "$form" "$(rss)" "$(probe)"
  wait "$p"; sleep 2
done
echo "after: VmRSS $(rss) MiB"
