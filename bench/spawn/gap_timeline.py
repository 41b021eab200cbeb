#!/usr/bin/env python3
"""Where the serial start-to-start gap goes (issue #27, item 3), from the kernel's scheduler events.

Runs ROOT/bin/gpusched on 30 jobs `[vram=22G] date +%s%N >> FILE` on one simulated 24000 MiB GPU (strictly
one at a time, as bench/vs_tsp.py's serial row) under `perf sched record`, then splits each gap between
one job's `date` and the next one's, by who wakes whom (`perf sched timehist -w`):
  exit -> spawn     the date process's last event until the scheduler's loop thread (the JVM's main
                    thread) wakes gpusched-spawnd with the next start: the shell's exit, the run's monitor
                    writing the exit file and ending, spawnd's reap and "exit" line, the JVM's reader
                    thread posting to the inbox, then the loop: the outcome, the round (GPU read, plan,
                    intent line, the run's files and environment); and, if the loop was still busy with
                    the round before (its fsync, board, reports), the rest of that
  spawn -> date     gpusched-spawnd woken until the next `date` runs: spawnd's fork of the monitor, its fork
                    of the command's process, the pid file, the answer, the "go"s, the shell's exec, its fork
                    and exec of date
  loop idle         of the gaps, how many found the loop waiting: the reader thread woke it for the exit
Prints each part's median [min-max] over the run's gaps (the first 3 skipped: JIT warm-up), in ms.
perf sched records the whole machine: run it on a quiet one (another process named `date` would count,
and on a loaded one every wake-up waits for a core, which is what it then measures).
usage: bench/spawn/gap_timeline.py ROOT [--runs N]   (needs perf with sched tracepoints, i.e. root)
"""
import argparse, os, re, statistics, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--runs", type=int, default=3)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="gpusched-gap-timeline-")
LINE = re.compile(r"^\s*(\d+\.\d+)\s+\[\d+\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+(.*)$")
WOKE = re.compile(r"awakened:\s+(.+?)\[(\d+)(?:/(\d+))?\]")
parts = {"exit -> spawn": [], "spawn -> date": [], "exit -> date": []}
idle = [0, 0]
for r in range(args.runs):
    f = os.path.join(work, "serial.txt")
    stamps = os.path.join(work, f"stamps-{r}")
    open(f, "w").write("".join(f"[vram=22G] date +%s%N >> {stamps}\n" for _ in range(30)))
    data = os.path.join(work, "sched.data")
    subprocess.run(["perf", "sched", "record", "-o", data, "--", os.path.join(args.root, "bin", "gpusched"), f,
                    "--sim", "1", "--fresh", "--log-dir", os.path.join(work, "logs")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    out = subprocess.run(["perf", "sched", "timehist", "-w", "-i", data], capture_output=True, text=True).stdout
    events = []  # (time, comm, tid, pid, woken comm, woken tid)
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t, comm, tid, pid, rest = float(m.group(1)), m.group(2).strip(), int(m.group(3)), m.group(4), m.group(5)
        w = WOKE.search(rest)
        events.append((t, comm, tid, int(pid) if pid else tid, w.group(1).strip() if w else None,
                       int(w.group(2)) if w else None))
    # The JVM: the process whose thread named gpusched-spawnd (the reader) posts exits; its main thread is the
    # "java" thread that wakes the spawnd process most often.
    spawnd = {tid for (_, c, tid, pid, _, _) in events if c.startswith("gpusched-spawn") and tid == pid}
    wakers = {}
    for (_, c, tid, pid, wc, wt) in events:
        if c == "java" and tid != pid and wt in spawnd:
            wakers[tid] = wakers.get(tid, 0) + 1
    if not wakers:
        raise SystemExit("no JVM thread woke gpusched-spawnd: is perf sched recording this process tree?")
    loop = max(wakers, key=wakers.get)
    server = max(spawnd, key=lambda s: sum(1 for e in events if e[5] == s and e[2] == loop))
    dates = []  # (pid, first event, last event)
    for (t, c, tid, pid, _, _) in events:
        if c == "date":
            if dates and dates[-1][0] == tid:
                dates[-1][2] = t
            else:
                dates.append([tid, t, t])
    jvm = next(pid for (_, c, tid, pid, _, _) in events if tid == loop)
    for (p1, _, end), (p2, start, _) in list(zip(dates, dates[1:]))[3:]:
        req = next((t for (t, c, tid, pid, wc, wt) in events if end <= t <= start and tid == loop and wt == server), None)
        if req is None:
            continue
        idle[1] += 1
        # The reader thread (a JVM thread named after the server) woke the loop for this exit: it was waiting.
        if any(end <= t <= req and wt == loop and pid == jvm and c.startswith("gpusched-spawn")
               for (t, c, tid, pid, wc, wt) in events):
            idle[0] += 1
        parts["exit -> spawn"].append((req - end) * 1000)
        parts["spawn -> date"].append((start - req) * 1000)
        parts["exit -> date"].append((start - end) * 1000)
for k, xs in parts.items():
    if xs:
        print(f"{k:14s} {statistics.median(xs):7.2f} ms [{min(xs):.2f}-{max(xs):.2f}]  n={len(xs)}")
print(f"loop idle      {idle[0]} of {idle[1]} exits found the loop waiting")
