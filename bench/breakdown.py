#!/usr/bin/env python3
"""Where a trivial job's time goes (issue #18), per job, rerunnable. Medians of RUNS runs [min-max].

  spawn paths      CPU and wall per run of the wrapper alone, started by this script (no scheduler):
                   `setsid /bin/sh -c WRAPPER` (the JVM's fallback), the same forked by gpusched-spawnd,
                   and the floor `/bin/sh -c true`
  scheduler        marginal per job, (1000 jobs - 200 jobs) / 800, split into the JVM's own CPU and the
                   CPU of what it started (wrappers, jobs, spawnd); with spawnd and with
                   GPUSCHED_NO_SPAWND=1
  start            CPU and wall of a one-job run, with the class-data archive and with GPUSCHED_NO_CDS=1

Usage: bench/breakdown.py [--runs N]   (builds the jar first through bin/gpusched)
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUSCHED = os.path.join(ROOT, "bin", "gpusched")
SPAWND = os.path.join(ROOT, "gpusched-core", "target", "classes", "io", "gpusched", "engine", "spawn", "gpusched-spawnd")
# The sh form of the wrapper, as JobLauncher.WRAPPER builds it.
WRAPPER = ("trap : TERM; __gs_p=$1 __gs_e=$2 __gs_c=$3; shift 3; printf '%s\\n' $$ >\"$__gs_p\"; "
           "( trap 'exit 143' TERM; eval \"$__gs_c\" ); __gs_rc=$?; printf '%s\\n' $__gs_rc >\"$__gs_e\"; exit $__gs_rc")


def fmt(xs, digits=2):
    return f"{statistics.median(xs):.{digits}f} [{min(xs):.{digits}f}–{max(xs):.{digits}f}]"


def children_cpu():
    t = os.times()
    return t.children_user + t.children_system


def spawn_paths(work, n):
    pid, ex = os.path.join(work, "p"), os.path.join(work, "e")
    out = {}
    direct = {
        "`setsid /bin/sh -c WRAPPER` (JVM fallback)": ["setsid", "/bin/sh", "-c", WRAPPER, "sh", pid, ex, "true"],
        "floor: `/bin/sh -c true`": ["/bin/sh", "-c", "true"],
    }
    for name, argv in direct.items():
        c0, t0 = children_cpu(), time.monotonic()
        for _ in range(n):
            subprocess.run(argv, stdin=subprocess.DEVNULL)
        out[name] = ((children_cpu() - c0) / n * 1000, (time.monotonic() - t0) / n * 1000)
    if os.access(SPAWND, os.X_OK):
        # Request: ID CWD STDIN LOG PID_FILE EXIT_FILE ARGC ARG... ENVC ENV... (spawnd.c); empty run files:
        # the child execs the wrapper itself (as before issue #27), else its monitor writes them.
        forms = {
            "`/bin/sh -c WRAPPER` forked by gpusched-spawnd (before #27)": ("", "", ["/bin/sh", "-c", WRAPPER, "sh", pid, ex, "true"]),
            "`/bin/sh -c true` under gpusched-spawnd's monitor (#27)": (pid, ex, ["/bin/sh", "-c", "true", "sh"]),
        }
        for name, (pf, ef, argv) in forms.items():
            c0, t0 = children_cpu(), time.monotonic()
            p = subprocess.Popen([SPAWND], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            fields = ["1", work, "/dev/null", os.path.join(work, "log"), pf, ef, str(len(argv)), *argv, "1",
                      "PATH=/usr/bin:/bin"]
            req = b"".join(x.encode() + b"\0" for x in fields)
            for _ in range(n):
                p.stdin.write(req)
                p.stdin.flush()
                while not p.stdout.readline().startswith(b"exit"):
                    pass
            p.stdin.close()
            p.wait()
            out[name] = ((children_cpu() - c0) / n * 1000, (time.monotonic() - t0) / n * 1000)
    return out


def jvm_split(cmd, env):
    """(self CPU s, reaped children CPU s) of a gpusched run, read from /proc just before it exits."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tick = os.sysconf("SC_CLK_TCK")
    last = (0, 0)
    while p.poll() is None:
        try:
            f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
            last = ((int(f[11]) + int(f[12])) / tick, (int(f[13]) + int(f[14])) / tick)
        except (OSError, IndexError):
            pass
        time.sleep(0.003)
    return last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    R = max(a.runs, 1)
    subprocess.run([GPUSCHED, "--version"], stdout=subprocess.DEVNULL, check=True)
    work = tempfile.mkdtemp(prefix="gpusched-breakdown-")

    rows = {}
    for _ in range(R):
        for k, (cpu, wall) in spawn_paths(work, 300).items():
            rows.setdefault(k, ([], []))
            rows[k][0].append(cpu)
            rows[k][1].append(wall)
    print(f"## Spawn paths, per run ({R} x 300 runs)\n\n| path | CPU ms | wall ms |\n|---|---|---|")
    for k, (c, w) in rows.items():
        print(f"| {k} | {fmt(c)} | {fmt(w)} |")

    files = {}
    for n in (200, 1000):
        files[n] = os.path.join(work, f"t{n}.txt")
        open(files[n], "w").write("[vram=1G] true\n" * n)
    print(f"\n## The scheduler, marginal per trivial job: (1000 jobs - 200 jobs) / 800 ({R} runs)\n")
    print("| spawn | JVM's own CPU ms | started processes' CPU ms | total ms |\n|---|---|---|---|")
    for name, extra in (("gpusched-spawnd", {}), ("JVM + setsid (GPUSCHED_NO_SPAWND=1)", {"GPUSCHED_NO_SPAWND": "1"})):
        env = dict(os.environ, **extra)
        own, kids = [], []
        for _ in range(R):
            s = {n: jvm_split([GPUSCHED, files[n], "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l")], env)
                 for n in (200, 1000)}
            own.append((s[1000][0] - s[200][0]) / 800 * 1000)
            kids.append((s[1000][1] - s[200][1]) / 800 * 1000)
        print(f"| {name} | {fmt(own)} | {fmt(kids)} | {fmt([x + y for x, y in zip(own, kids)])} |")

    one = os.path.join(work, "one.txt")
    open(one, "w").write("[vram=1G] true\n")
    print(f"\n## A one-job run, start to exit ({R} runs)\n\n| archive | CPU s | wall s |\n|---|---|---|")
    for name, extra in (("class-data archive", {}), ("none (GPUSCHED_NO_CDS=1)", {"GPUSCHED_NO_CDS": "1"})):
        env = dict(os.environ, **extra)
        cpu, wall = [], []
        for _ in range(R):
            c0, t0 = children_cpu(), time.monotonic()
            subprocess.run([GPUSCHED, one, "--sim", "1", "--fresh", "--log-dir", os.path.join(work, "l1")], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall.append(time.monotonic() - t0)
            cpu.append(children_cpu() - c0)
        print(f"| {name} | {fmt(cpu, 3)} | {fmt(wall, 3)} |")


if __name__ == "__main__":
    main()
