#!/usr/bin/env python3
"""Per-job overhead A/B (issue #27, item 3): two checkouts' bin/gpusched, interleaved round by round, on
the rows of bench/vs_tsp.py that the spawn path moves:
  serial gap    30 jobs `[vram=22G] date +%s%N >> FILE` on one simulated 24000 MiB GPU (strictly one at
                a time): the median start-to-start gap of the run
  200 trivial   `[vram=1G] true` x 200, `gpusched FILE --sim 2 --fresh`: wall, and CPU (user+sys of the
                JVM and every process it started: spawner, monitors, shells) per job
Each round runs A then B (or B then A on odd rounds). Prints median [min-max] per row and checkout.
usage: bench/spawn/ab.py A_ROOT B_ROOT [--runs N]     (each root built: ROOT/bin/gpusched --version)
"""
import argparse, os, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("a")
ap.add_argument("b")
ap.add_argument("--runs", type=int, default=5)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="gpusched-spawn-ab-")


def timed(cmd):
    b = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    w = time.perf_counter() - t
    e = os.times()
    return w, (e.children_user - b.children_user) + (e.children_system - b.children_system)


def serial(root, i):
    stamps = os.path.join(work, f"stamps-{os.path.basename(root)}-{i}")
    f = os.path.join(work, "serial.txt")
    open(f, "w").write("".join(f"[vram=22G] date +%s%N >> {stamps}\n" for _ in range(30)))
    timed([os.path.join(root, "bin", "gpusched"), f, "--sim", "1", "--fresh", "--log-dir", os.path.join(work, "l-serial")])
    t = [int(x) for x in open(stamps).read().split()]
    return statistics.median((b - a) / 1e6 for a, b in zip(t, t[1:]))


def trivial(root):
    f = os.path.join(work, "t200.txt")
    open(f, "w").write("[vram=1G] true\n" * 200)
    w, c = timed([os.path.join(root, "bin", "gpusched"), f, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-200")])
    return w, c / 200 * 1000


roots = {"A": args.a, "B": args.b}
for r in roots.values():
    subprocess.run([os.path.join(r, "bin", "gpusched"), "--version"], check=True, stdout=subprocess.DEVNULL)
    trivial(r)  # trains the run archive, warms the page cache
res = {k: {"gap": [], "wall": [], "cpu": []} for k in roots}
for i in range(args.runs):
    for k in (["A", "B"] if i % 2 == 0 else ["B", "A"]):
        res[k]["gap"].append(serial(roots[k], i))
        w, c = trivial(roots[k])
        res[k]["wall"].append(w)
        res[k]["cpu"].append(c)


def fmt(xs, d=2):
    return f"{statistics.median(xs):.{d}f} [{min(xs):.{d}f}–{max(xs):.{d}f}]"


print(f"| row ({args.runs} rounds, interleaved; median [min–max]) | A: {args.a} | B: {args.b} |")
print("|---|---|---|")
print(f"| serial start-to-start gap, ms | {fmt(res['A']['gap'])} | {fmt(res['B']['gap'])} |")
print(f"| 200 trivial jobs, wall s | {fmt(res['A']['wall'])} | {fmt(res['B']['wall'])} |")
print(f"| CPU per trivial job, everything included, ms | {fmt(res['A']['cpu'])} | {fmt(res['B']['cpu'])} |")
