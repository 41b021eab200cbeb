#!/usr/bin/env python3
"""Where a trivial job's CPU goes (issue #27, item 3), per process and thread, from `perf record`.

Runs `ROOT/bin/gpusched FILE --sim 2 --fresh` on N `[vram=1G] true` lines (and on 1 line, for the fixed
cost) under `perf record -e task-clock` (every process and thread it starts), then splits the samples:
  launcher            bin/gpusched's bash (and its find) before it execs java
  jvm:loop            the JVM's main thread: start-up, then the engine loop (planning, journal, launch)
  jvm:jit             the C1/C2 compiler threads
  jvm:gc+vm           the VM thread (GC, safepoints)
  jvm:status-board    the paced status writer
  jvm:spawnd-reader   the thread reading gpusched-spawnd's replies
  jvm:other           any other JVM thread
  spawnd              the spawn server itself (its forks, its replies)
  monitor             each run's monitor (spawnd's forked child) and the run's process before its exec
  job shell           /bin/sh -c CMD (the exec, the dynamic loader, running `true`)
  other               anything else
Each row: ms per job over the N-line run (all of it / N), the same for the 1-line run (its total / N: the
fixed cost spread over N jobs), and the marginal ms per job ((N-line - 1-line) / (N - 1)); kernel share of it.

usage: bench/spawn/cpu_breakdown.py ROOT [--jobs N] [--runs R]   (needs perf; ROOT built: ROOT/bin/gpusched --version)
"""
import argparse, collections, os, statistics, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--jobs", type=int, default=200)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--freq", type=int, default=4000)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="gpusched-cpu-breakdown-")
ORDER = ["launcher", "jvm:loop", "jvm:jit", "jvm:gc+vm", "jvm:status-board", "jvm:spawnd-reader", "jvm:other",
         "spawnd", "monitor", "job shell", "other"]


def profile(n):
    """ms of CPU per class over one run of n trivial lines, and the kernel part of each."""
    f = os.path.join(work, f"t{n}.txt")
    open(f, "w").write("[vram=1G] true\n" * n)
    data = os.path.join(work, "perf.data")
    subprocess.run(["perf", "record", "-q", "-F", str(args.freq), "-e", "task-clock", "-o", data, "--",
                    os.path.join(args.root, "bin", "gpusched"), f, "--sim", "2", "--fresh", "--log-dir",
                    os.path.join(work, "logs")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,comm,ip,dso"], capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        # "COMM PID/TID IP (DSO)": a comm may hold spaces
        head, _, rest = line.partition("/")
        comm, _, pid = head.strip().rpartition(" ")
        if not pid.isdigit():
            continue
        tid = rest.split()[0]
        rows.append((comm.strip(), int(pid), int(tid), "kernel" in rest))
    java = next((p for c, p, t, k in rows if c == "java"), None)
    # The server lives the whole run, a monitor one job: the server is the one with the most samples (not
    # the lowest pid, which a run of thousands of processes may wrap past).
    per_pid = collections.Counter(p for c, p, t, k in rows if c == "gpusched-spawnd" and p != java)
    server = per_pid.most_common(1)[0][0] if per_pid else None
    ms = 1000.0 / args.freq
    total, kernel = collections.Counter(), collections.Counter()
    for comm, pid, tid, k in rows:
        if pid == java:
            if comm in ("gpusched", "bash", "find") or tid == pid:
                c = "launcher"
            elif comm == "java" and tid != pid:
                c = "jvm:loop"  # the main thread (the launcher's first thread only waits for it)
            elif comm.startswith("C1 ") or comm.startswith("C2 "):
                c = "jvm:jit"
            elif comm.startswith("VM "):
                c = "jvm:gc+vm"
            elif comm.startswith("gpusched-status"):
                c = "jvm:status-board"
            elif comm == "gpusched-spawnd":
                c = "jvm:spawnd-reader"
            else:
                c = "jvm:other"
        elif comm in ("find", "bash", "gpusched"):
            c = "launcher"
        elif comm == "gpusched-spawnd":
            c = "spawnd" if pid == server else "monitor"
        elif comm == "sh" or comm == "true":
            c = "job shell"
        else:
            c = "other"
        total[c] += ms
        kernel[c] += ms if k else 0
    return total, kernel


res = {n: [] for n in (args.jobs, 1)}
profile(1)  # warms the page cache and the archives
for _ in range(args.runs):
    for n in (args.jobs, 1):
        res[n].append(profile(n))


def med(n, c, which=0):
    return statistics.median(r[which][c] for r in res[n])


n = args.jobs
print(f"CPU per job, ms ({args.runs} runs, medians; perf task-clock samples at {args.freq} Hz; root {args.root})")
print(f"| part | {n} jobs: all / {n} | of it kernel | 1 job: all / {n} | marginal per job |")
print("|---|---|---|---|---|")
tn = t1 = 0.0
for c in ORDER:
    a, k, b = med(n, c) / n, med(n, c, 1) / n, med(1, c) / n
    tn += a
    t1 += b
    print(f"| {c} | {a:.2f} | {k:.2f} | {b:.2f} | {(med(n, c) - med(1, c)) / (n - 1):.2f} |")
print(f"| **sum** | {tn:.2f} | | {t1:.2f} | {(tn - t1) * n / (n - 1):.2f} |")
