"""A client of `gpusched serve` speaking PROTOCOL.md on its socket, for the lab-scale benchmarks (issue #27).
Run in the directory the jobs should see as their cwd. Modes:
  fill N      N submissions on 8 connections, each keeping 32 in flight  -> "fill N SECONDS"
  trips N     N sequential submissions on one connection, each answered once durable
              -> "trips median_ms X p99_ms Y"
  clients     10 clients x 100 submissions at once  -> "clients per_s X"
Usage: python3 bench/daemon_client.py SOCKET MODE [N]   A benchmark aid, not a test."""
import json, os, socket, statistics, sys, threading, time
sock, mode = sys.argv[1], sys.argv[2]
cwd = os.getcwd()
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(sock); return s, s.makefile('rb')
def req(i, tag):
    return (json.dumps({"v": 1, "op": "submit", "line": f"[vram=20G] echo {tag} {i}", "cwd": cwd,
                        "env": {"PATH": "/usr/bin:/bin"}}) + "\n").encode()
def answer(f):
    a = json.loads(f.readline())
    if not a.get("ok"):
        sys.exit(f"refused: {a}")
if mode == "fill":            # N submissions on 8 connections, each keeping 32 in flight
    n = int(sys.argv[3]); t0 = time.time()
    def fill(k):
        s, f = conn(); mine = range(k, n, 8); window = 32
        for j, i in enumerate(mine):
            s.sendall(req(i, "queued"))
            if j >= window: answer(f)
        for _ in range(min(window, len(mine))): answer(f)
    ts = [threading.Thread(target=fill, args=(k,)) for k in range(8)]
    [t.start() for t in ts]; [t.join() for t in ts]
    print(f"fill {n} {time.time() - t0:.2f}")
elif mode == "trips":         # sequential round trips on one connection
    n = int(sys.argv[3]); s, f = conn(); rt = []
    for i in range(n):
        t0 = time.perf_counter(); s.sendall(req(i, "trip")); answer(f); rt.append(time.perf_counter() - t0)
    rt.sort()
    print(f"trips median_ms {statistics.median(rt) * 1e3:.2f} p99_ms {rt[int(len(rt) * 0.99)] * 1e3:.2f}")
elif mode == "clients":       # 10 clients x 100 submissions at once
    def one(k):
        s, f = conn()
        for i in range(100):
            s.sendall(req(i, f"client{k}")); answer(f)
    t0 = time.time()
    ts = [threading.Thread(target=one, args=(k,)) for k in range(10)]
    [t.start() for t in ts]; [t.join() for t in ts]
    print(f"clients per_s {1000 / (time.time() - t0):.0f}")
