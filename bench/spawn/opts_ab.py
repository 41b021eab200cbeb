#!/usr/bin/env python3
"""JVM options A/B for a jobs-file run (issue #27): one checkout's bin/gpusched, each variant of
GPUSCHED_JAVA_OPTS (extra JVM options the launcher appends) interleaved round by round, on the two rows of
bench/vs_tsp.py that a run of a jobs file decides:
  serial gap    30 jobs `[vram=22G] date +%s%N >> FILE` on one simulated 24000 MiB GPU (strictly one at
                a time): the median start-to-start gap of the run
  200 trivial   `[vram=1G] true` x 200, `--sim 2 --fresh`: wall, and CPU (user+sys of the JVM and every
                process it started) per job
Prints median [min-max] per row and variant. The empty variant '' is the launcher as shipped.
usage: bench/spawn/opts_ab.py ROOT [--runs N] -- VARIANT...   (after --: a variant may start with -)
  e.g. bench/spawn/opts_ab.py . --runs 5 -- '' -Xint -XX:CompileThresholdScaling=0.1
"""
import argparse, os, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("variants", nargs="+")
args = ap.parse_args()
gpusched = os.path.join(args.root, "bin", "gpusched")
work = tempfile.mkdtemp(prefix="gpusched-opts-ab-")
t200 = os.path.join(work, "t200.txt")
open(t200, "w").write("[vram=1G] true\n" * 200)


def run(opts, cmd):
    env = dict(os.environ, GPUSCHED_JAVA_OPTS=opts)
    b = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    w = time.perf_counter() - t
    a = os.times()
    return w, (a.children_user - b.children_user) + (a.children_system - b.children_system)


rows = {v: {"gap": [], "wall": [], "cpu": []} for v in args.variants}
for r in range(args.runs):
    for k, v in enumerate(args.variants if r % 2 == 0 else list(reversed(args.variants))):
        stamps = os.path.join(work, f"stamps-{r}-{args.variants.index(v)}")
        serial = os.path.join(work, "serial.txt")
        open(serial, "w").write("".join(f"[vram=22G] date +%s%N >> {stamps}\n" for _ in range(30)))
        run(v, [gpusched, serial, "--sim", "1", "--fresh", "--log-dir", os.path.join(work, "l-serial")])
        t = [int(x) for x in open(stamps).read().split()]
        rows[v]["gap"].append(statistics.median((b - a) / 1e6 for a, b in zip(t, t[1:])))
        w, c = run(v, [gpusched, t200, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-t200")])
        rows[v]["wall"].append(w)
        rows[v]["cpu"].append(c * 1000 / 200)


def fmt(xs, unit, nd=2):
    return f"{statistics.median(xs):.{nd}f} {unit} [{min(xs):.{nd}f}–{max(xs):.{nd}f}]"


print(f"| variant of GPUSCHED_JAVA_OPTS ({args.runs} rounds, interleaved) | serial gap | 200 trivial jobs, wall | CPU per trivial job |")
print("|---|---|---|---|")
for v in args.variants:
    print(f"| `{v or '(none)'}` | {fmt(rows[v]['gap'], 'ms')} | {fmt(rows[v]['wall'], 's')} | {fmt(rows[v]['cpu'], 'ms')} |")
