#!/usr/bin/env python3
"""Two gpusched-spawnd binaries, A/B interleaved (issue #27, item 3): N monitored runs of `/bin/sh -c true`
one after another (request, `started`, `exit`, next), as the scheduler sends them, with the pid and exit
files in a scratch directory. Per run: the CPU of the server and everything it started (monitors, shells;
user + sys of the reaped children) and the wall time of the round trip. Then the same runs in flight
together (each request sent once the previous one is `started`, exits read as they come), as a round of
launches sends them: the request-to-`started` latency's median. Medians of ROUNDS [min-max].
No JVM in the way, so the machine's load moves these figures less than a whole scheduler's.

usage: bench/spawn/spawnd_ab.py A_BINARY B_BINARY [--runs N] [--rounds R]
  a checkout's binary: gpusched-core/target/classes/io/gpusched/engine/spawn/gpusched-spawnd, or extract it
  from a jar: unzip -p JAR io/gpusched/engine/spawn/gpusched-spawnd > FILE && chmod +x FILE
"""
import argparse, os, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("a")
ap.add_argument("b")
ap.add_argument("--runs", type=int, default=300)
ap.add_argument("--rounds", type=int, default=5)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="gpusched-spawnd-ab-")


def one(binary):
    t = os.times()
    c0, w0 = t.children_user + t.children_system, time.monotonic()
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for i in range(args.runs):
        pid, ex = os.path.join(work, f"job{i}.pid"), os.path.join(work, f"job{i}.exit")
        argv = ["/bin/sh", "-c", "true", "sh"]
        fields = [str(i), work, "/dev/null", os.path.join(work, f"job{i}.log"), pid, ex, str(len(argv)), *argv,
                  "1", "PATH=/usr/bin:/bin"]
        p.stdin.write(b"".join(x.encode() + b"\0" for x in fields))
        p.stdin.flush()
        while not p.stdout.readline().startswith(b"exit"):
            pass
    p.stdin.close()
    p.wait()
    for f in os.listdir(work):
        os.unlink(os.path.join(work, f))
    t = os.times()
    return (t.children_user + t.children_system - c0) / args.runs * 1000, (time.monotonic() - w0) / args.runs * 1000


def together(binary):
    """Median ms from a request to its `started` line with every earlier run possibly still in flight."""
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    exits, lat = 0, []
    for i in range(args.runs):
        argv = ["/bin/sh", "-c", "true", "sh"]
        fields = [str(i), work, "/dev/null", os.path.join(work, f"job{i}.log"), os.path.join(work, f"job{i}.pid"),
                  os.path.join(work, f"job{i}.exit"), str(len(argv)), *argv, "1", "PATH=/usr/bin:/bin"]
        t = time.monotonic()
        p.stdin.write(b"".join(x.encode() + b"\0" for x in fields))
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if line.startswith(b"started"):
                break
            exits += line.startswith(b"exit")
        lat.append((time.monotonic() - t) * 1000)
    while exits < args.runs:
        exits += p.stdout.readline().startswith(b"exit")
    p.stdin.close()
    p.wait()
    for f in os.listdir(work):
        os.unlink(os.path.join(work, f))
    return statistics.median(lat)


res = {"A": ([], [], []), "B": ([], [], [])}
one(args.a), one(args.b)  # warm the page cache
for r in range(args.rounds):
    for k in (("A", "B") if r % 2 == 0 else ("B", "A")):
        c, w = one(args.a if k == "A" else args.b)
        res[k][0].append(c)
        res[k][1].append(w)
        res[k][2].append(together(args.a if k == "A" else args.b))


def fmt(xs):
    return f"{statistics.median(xs):.3f} [{min(xs):.3f}–{max(xs):.3f}]"


print(f"| per monitored run of `/bin/sh -c true` ({args.rounds} rounds x {args.runs}, interleaved) | A: {args.a} | B: {args.b} |")
print("|---|---|---|")
print(f"| CPU ms (server, monitors, shells) | {fmt(res['A'][0])} | {fmt(res['B'][0])} |")
print(f"| wall ms, request to exit | {fmt(res['A'][1])} | {fmt(res['B'][1])} |")
print(f"| runs in flight together: request to `started`, median ms | {fmt(res['A'][2])} | {fmt(res['B'][2])} |")
