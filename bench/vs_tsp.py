#!/usr/bin/env python3
"""gpusched beside task-spooler (issue #18): the same rows, one run, this machine.

Every row is measured RUNS times (>= 5) for both tools and printed as median [min-max]:
  serial start-to-start gap   30 jobs that each append `date +%s%N` to a file, strictly one at a time
                              (ours: [vram=22G] on one simulated 24000 MiB GPU; tsp: -S 1); median gap
  200 trivial jobs, wall      ours: 200 `[vram=1G] true` lines, `gpusched FILE --sim 2 --fresh` from JVM
                              start to exit; tsp -S 2: 200 client calls `tsp true` from the first call until
                              the server has nothing queued or running
  CPU per trivial job         user+sys of everything (clients, server or scheduler, wrappers, jobs) / 200
  client verb, wall           ours: `gpusched queue` against `gpusched serve`, and `gpusched --version`;
                              tsp: `tsp -l`
  submit round trip, QUEUED   ours: bench/service/SubmitBench.java (one client, in-process JVM, so no
  queued                      JVM start); tsp: `tsp true` (a whole client process) behind a `sleep`, with
                              at most 900 queued (task-spooler's connection limit, TS_MAXCONN=1000)

tsp is Debian's task-spooler; where it is missing this installs it with apt (and says so). Usage:
  bench/vs_tsp.py [--runs N] [--queued N]      (build first: bin/gpusched --version)
Writes bench/results/vs-tsp-<time>.json.
"""
import argparse, json, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUSCHED = os.path.join(ROOT, "bin", "gpusched")
JAR = os.path.join(ROOT, "gpusched-cli", "target", "gpusched.jar")


def stats(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def fmt(s, unit, scale=1.0, digits=2):
    return f"{s['median']*scale:.{digits}f} {unit} [{s['min']*scale:.{digits}f}–{s['max']*scale:.{digits}f}]"


def timed(cmd, env=None, cwd=None):
    """Runs cmd to its end: (wall s, user+sys CPU s of it and its reaped children)."""
    before = os.times()
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def gaps_ms(path):
    t = [int(x) for x in open(path).read().split()]
    return [(b - a) / 1e6 for a, b in zip(t, t[1:])]


class Tsp:
    """A task-spooler server of our own: its own socket and output directory, killed at the end."""

    def __init__(self, work, slots):
        self.dir = tempfile.mkdtemp(dir=work, prefix="tsp-")
        self.env = dict(os.environ, TS_SOCKET=os.path.join(self.dir, "socket"), TMPDIR=self.dir, TS_MAXFINISHED="100000")
        subprocess.run(["tsp", "-S", str(slots)], env=self.env, stdout=subprocess.DEVNULL, check=True)
        self.pid = int(subprocess.run(["fuser", self.env["TS_SOCKET"]], capture_output=True, text=True).stdout.split()[0]) \
            if shutil.which("fuser") else None

    def run(self, *args):
        return subprocess.run(["tsp", *args], env=self.env, capture_output=True, text=True).stdout

    def busy(self):
        return any(l.split()[1] in ("running", "queued") for l in self.run("-l").splitlines()[1:] if len(l.split()) > 1)

    def server_cpu_s(self):
        """utime+stime of the server and the jobs it reaped, from /proc (clock ticks)."""
        if self.pid is None:
            return 0.0
        f = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")

    def kill(self):
        # -K ends the server but leaves its running job (the submit rows' `sleep 3600`, for an hour): -k first.
        for arg in ("-k", "-K"):
            subprocess.run(["tsp", arg], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def say(what):
    print(time.strftime("%H:%M:%S ") + what, file=sys.stderr, flush=True)


def ensure_tsp():
    if shutil.which("tsp"):
        return "present"
    print("task-spooler is missing: installing it with apt-get (package task-spooler)", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-qq", "task-spooler"], stdout=subprocess.DEVNULL, check=True)
    return "installed by this run (apt-get install task-spooler)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queued", type=int, default=10000)
    a = ap.parse_args()
    R = max(a.runs, 1)
    how = ensure_tsp()
    subprocess.run([GPUSCHED, "--version"], stdout=subprocess.DEVNULL, check=True)  # builds the jar if needed
    work = tempfile.mkdtemp(prefix="gpusched-vs-tsp-")
    res = {"tsp": how}

    # ---- serial start-to-start gap
    say("serial gap")
    ours, theirs = [], []
    for i in range(R):
        stamps = os.path.join(work, f"ours-{i}")
        f = os.path.join(work, "serial.txt")
        open(f, "w").write("".join(f"[vram=22G] date +%s%N >> {stamps}\n" for _ in range(30)))
        timed([GPUSCHED, f, "--sim", "1", "--fresh", "--log-dir", os.path.join(work, "l-serial")])
        ours.append(statistics.median(gaps_ms(stamps)))
        t = Tsp(work, 1)
        stamps = os.path.join(work, f"tsp-{i}")
        t.run("sleep", "0.5")  # holds the slot while the 30 are queued, so they then run back to back
        for _ in range(30):
            t.run("sh", "-c", f"date +%s%N >> {stamps}")
        while t.busy():
            time.sleep(0.05)
        t.kill()
        theirs.append(statistics.median(gaps_ms(stamps)))
    res["serial_gap_ms"] = {"gpusched": stats(ours), "tsp": stats(theirs)}

    # ---- 200 trivial jobs: wall and CPU per job
    say("200 trivial jobs")
    f = os.path.join(work, "trivial200.txt")
    open(f, "w").write("[vram=1G] true\n" * 200)
    ow, oc, tw, tc = [], [], [], []
    for i in range(R):
        w, c = timed([GPUSCHED, f, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-200")])
        ow.append(w); oc.append(c / 200 * 1000)
        t = Tsp(work, 2)
        before = os.times()
        t0 = time.monotonic()
        for _ in range(200):
            subprocess.run(["tsp", "true"], env=t.env, stdout=subprocess.DEVNULL)
        while t.busy():
            time.sleep(0.005)
        tw.append(time.monotonic() - t0)
        after = os.times()
        clients = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        tc.append((clients + t.server_cpu_s()) / 200 * 1000)
        t.kill()
    res["trivial200_wall_s"] = {"gpusched": stats(ow), "tsp": stats(tw)}
    res["cpu_ms_per_job"] = {"gpusched": stats(oc), "tsp": stats(tc)}

    # ---- client verbs
    say("client verbs")
    sock = os.path.join(work, "gs.sock")
    daemon = subprocess.Popen([GPUSCHED, "serve", "--socket", sock, "--sim", "1", "--log-dir", os.path.join(work, "l-serve")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    q = [timed([GPUSCHED, "queue", "--socket", sock])[0] for _ in range(max(R, 10))]
    v = [timed([GPUSCHED, "--version"])[0] for _ in range(max(R, 10))]
    os.killpg(daemon.pid, signal.SIGTERM)
    daemon.wait()
    t = Tsp(work, 1)
    l = [timed(["tsp", "-l"], env=t.env)[0] for _ in range(max(R, 10))]
    t.kill()
    res["client_verb_s"] = {"gpusched queue": stats(q), "gpusched --version": stats(v), "tsp -l": stats(l)}

    # ---- submit round trip with QUEUED jobs queued
    say("submit round trips")
    out = subprocess.run(["java", "-cp", JAR, os.path.join(ROOT, "bench", "service", "SubmitBench.java"),
                          str(a.queued), "300"], capture_output=True, text=True).stdout
    m = re.search(r"median ([0-9.]+) ms", out)
    ours_rt = float(m.group(1)) if m else float("nan")
    t = Tsp(work, 1)
    t.run("sleep", "3600")
    # task-spooler keeps a waiting client process and a connection per queued job, and takes at most
    # TS_MAXCONN (1000 by default) connections: its backlog here is at most 900. Queued through its own
    # clients, many at once to keep the harness short.
    tsp_backlog = min(a.queued, 900)
    res["tsp_backlog"] = tsp_backlog
    batch = []
    for i in range(tsp_backlog):
        batch.append(subprocess.Popen(["tsp", "true"], env=t.env, stdout=subprocess.DEVNULL))
        if len(batch) >= 32:
            [p.wait() for p in batch]; batch = []
    [p.wait() for p in batch]
    rt = [timed(["tsp", "true"], env=t.env)[0] * 1000 for _ in range(50)]
    t.kill()
    res["submit_rt_ms"] = {"gpusched": {"median": ours_rt, "raw": out.strip().splitlines()[-6:]}, "tsp": stats(rt)}

    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", time.strftime("vs-tsp-%Y%m%d-%H%M%S.json"))
    json.dump(res, open(path, "w"), indent=1)
    print(f"| row ({R} runs; median [min–max]) | gpusched | task-spooler |")
    print("|---|---|---|")
    print(f"| serial start-to-start gap | {fmt(res['serial_gap_ms']['gpusched'], 'ms')} | {fmt(res['serial_gap_ms']['tsp'], 'ms')} |")
    print(f"| 200 trivial jobs, wall (tsp: 200 client calls) | {fmt(res['trivial200_wall_s']['gpusched'], 's')} | "
          f"{fmt(res['trivial200_wall_s']['tsp'], 's')} |")
    print(f"| CPU per trivial job, everything included | {fmt(res['cpu_ms_per_job']['gpusched'], 'ms')} | "
          f"{fmt(res['cpu_ms_per_job']['tsp'], 'ms')} |")
    print(f"| client verb, wall: `gpusched queue` / `tsp -l` | {fmt(res['client_verb_s']['gpusched queue'], 'ms', 1000, 0)} | "
          f"{fmt(res['client_verb_s']['tsp -l'], 'ms', 1000, 1)} |")
    print(f"| `gpusched --version`, wall | {fmt(res['client_verb_s']['gpusched --version'], 'ms', 1000, 0)} | — |")
    print(f"| submit round trip with a backlog (ours: {a.queued} queued, an in-process client; tsp: {tsp_backlog}"
          f" queued, its limit, a client process) | {ours_rt:.2f} ms median | {fmt(res['submit_rt_ms']['tsp'], 'ms')} |")
    print(f"\nraw: {os.path.relpath(path, ROOT)}; task-spooler {how}")


if __name__ == "__main__":
    main()
