"""Lone-client submit round trips alternated between running daemons, one submission at a time (issue #24).
Each daemon gets one connection; trip i goes to every daemon in turn (the order reversed every other trip),
so all of them see the same load at each moment: on a shared, loaded machine, where one daemon's run of
trips and the next one's see different loads, this compares them where a run after run does not.
Start the daemons with bench/queue/filled_daemon.sh (the same N each). Prints, per socket, the median and
p99 round trip in ms. A daemon that runs a long round meanwhile (a1475ce's deferred plans) slows the others'
trips too: compare daemons of the same design.
Usage: python3 bench/daemon_alternate.py SOCKET... TRIPS   (run in the directory the jobs should see as cwd)"""
import json, os, socket, statistics, sys, time
socks = sys.argv[1:-1]; n = int(sys.argv[-1])
conns = []
for p in socks:
    s = socket.socket(socket.AF_UNIX); s.connect(p); conns.append((s, s.makefile('rb')))
cwd = os.getcwd(); rt = [[] for _ in socks]
for i in range(n):
    for k in (range(len(socks)) if i % 2 == 0 else reversed(range(len(socks)))):
        s, f = conns[k]
        b = (json.dumps({"v": 1, "op": "submit", "line": f"[vram=20G] echo alt {i}", "cwd": cwd,
                         "env": {"PATH": "/usr/bin:/bin"}}) + "\n").encode()
        t0 = time.perf_counter(); s.sendall(b); a = json.loads(f.readline()); rt[k].append(time.perf_counter() - t0)
        if not a.get("ok"):
            sys.exit(f"refused: {a}")
for p, r in zip(socks, rt):
    r.sort()
    print(p, "median_ms %.3f p99_ms %.2f" % (statistics.median(r) * 1e3, r[int(len(r) * 0.99)] * 1e3))
