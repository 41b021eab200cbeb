#!/usr/bin/env bash
# A `gpusched serve` (bin/gpusched's JVM flags) on one simulated GPU held by a running `sleep`, filled with N
# submissions through the socket (lab_scale.sh's pace), left running for verb_ab.sh / client_timeline.sh.
# Usage: bench/queue/filled_daemon.sh JAR N DIR (DIR absolute; its socket DIR/s.sock, its pid in DIR/pid;
# stop it with kill $(cat DIR/pid)). Issue #27.
set -euo pipefail
jar=$1; n=$2; d=$3; rm -rf "$d"; mkdir -p "$d"
opts=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xms8m -Xmn4m -XX:-UsePerfData -Xshare:auto)
echo '[vram=20G] sleep 3600' >"$d/jobs.txt"
setsid java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main serve --jobs "$d/jobs.txt" --sim 1 --socket "$d/s.sock" --log-dir "$d/logs" >"$d/daemon.log" 2>&1 < /dev/null &
echo $! > "$d/pid"
until java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >/dev/null 2>&1; do sleep 0.3; done
(cd "$d" && python3 - "$d/s.sock" "$n" <<'PY'
import json, os, socket, sys, threading, time
sock, n = sys.argv[1], int(sys.argv[2]); cwd = os.getcwd(); t0 = time.time()
def fill(k):
    s = socket.socket(socket.AF_UNIX); s.connect(sock); f = s.makefile('rb'); mine = range(k, n, 8)
    for j, i in enumerate(mine):
        s.sendall((json.dumps({"v": 1, "op": "submit", "line": f"[vram=20G] echo queued {i}", "cwd": cwd,
                               "env": {"PATH": "/usr/bin:/bin"}}) + "\n").encode())
        if j >= 32: assert json.loads(f.readline())["ok"]
    for _ in range(min(32, len(mine))): assert json.loads(f.readline())["ok"]
ts = [threading.Thread(target=fill, args=(k,)) for k in range(8)]; [t.start() for t in ts]; [t.join() for t in ts]
print(f"fill {n} in {time.time() - t0:.1f} s")
PY
)
