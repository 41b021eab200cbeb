#!/usr/bin/env python3
"""CPU per trivial job, two checkouts and task-spooler interleaved (issue #27): the `CPU per trivial job` row
of bench/vs_tsp.py alone, so that a change's A/B and task-spooler's figure come from the same minutes of a
shared machine. Each round runs, in turn (the order reversed every other round):
  A, B    `[vram=1G] true` x 200, `ROOT/bin/gpusched FILE --sim 2 --fresh`: user+sys of the JVM and every
          process it started / 200
  tsp     a task-spooler server of its own (`tsp -S 2`), 200 client calls `tsp true` until it has nothing
          queued or running: user+sys of the clients, the server and the jobs it reaped / 200 (vs_tsp.py's Tsp)
Prints median [min-max] of the rounds, ms per job, and the load average before and after.
usage: bench/spawn/trivial_vs_tsp.py A_ROOT B_ROOT [--runs N]   (each root built: ROOT/bin/gpusched --version)
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vs_tsp import Tsp, ensure_tsp, timed  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("a")
ap.add_argument("b")
ap.add_argument("--runs", type=int, default=5)
args = ap.parse_args()
ensure_tsp()
work = tempfile.mkdtemp(prefix="gpusched-trivial-vs-tsp-")
t200 = os.path.join(work, "t200.txt")
open(t200, "w").write("[vram=1G] true\n" * 200)


def ours(root):
    _, c = timed([os.path.join(root, "bin", "gpusched"), t200, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l")])
    return c / 200 * 1000


def tsp():
    t = Tsp(work, 2)
    before = os.times()
    for _ in range(200):
        subprocess.run(["tsp", "true"], env=t.env, stdout=subprocess.DEVNULL)
    while t.busy():
        time.sleep(0.005)
    after = os.times()
    clients = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    cpu = (clients + t.server_cpu_s()) / 200 * 1000
    t.kill()
    return cpu


ways = {"A: " + args.a: lambda: ours(args.a), "B: " + args.b: lambda: ours(args.b), "task-spooler": tsp}
for r in (args.a, args.b):
    ours(r)  # trains the run archive, warms the page cache
res = {k: [] for k in ways}
load0 = os.getloadavg()
for i in range(args.runs):
    for k in (list(ways) if i % 2 == 0 else list(reversed(ways))):
        res[k].append(ways[k]())
load1 = os.getloadavg()
print(f"| CPU per trivial job, ms ({args.runs} rounds, interleaved; median [min–max]) | |")
print("|---|---|")
for k, xs in res.items():
    print(f"| {k} | {statistics.median(xs):.2f} [{min(xs):.2f}–{max(xs):.2f}] |")
print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
