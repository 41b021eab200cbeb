#!/usr/bin/env python3
"""End-to-end CLI benchmarks for every row of issue #5's table, with the spawn/JVM floors
measured in the same run. Each figure is repeated RUNS times (>= 5) and reported as
median [min-max]. Prints a Markdown table to stdout and writes bench/results/e2e-<time>.json.

Usage: bench/e2e.py [--runs N] [--quick]      (bench/run.sh builds the jars and calls this)
"""
import argparse, json, os, random, re, resource, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUSCHED = os.path.join(ROOT, "bin", "gpusched")
BENCH_JAR = os.path.join(ROOT, "bench", "jmh", "target", "benchmarks.jar")
# The launcher's JVM flags: its `opts=( ... )` array, so every figure runs under the same flags.
JVM_FLAGS = re.search(r"^opts=\((.*?)\)", open(GPUSCHED).read(), re.S | re.M).group(1).split()


def run(cmd, cwd=None, timeout=600, kill_after=None):
    """Runs cmd; returns (wall_s, cpu_s incl. children, max_rss_kib, stdout)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         start_new_session=True)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(p.pid, signal.SIGTERM)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out


def stats(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def fmt(s, unit, scale=1.0, digits=2):
    return f"{s['median']*scale:.{digits}f} {unit} [{s['min']*scale:.{digits}f}–{s['max']*scale:.{digits}f}]"


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="skip the two poll-5 serial-gap runs' long tail")
    a = ap.parse_args()
    R = max(a.runs, 1)
    work = tempfile.mkdtemp(prefix="gpusched-bench-")
    res = {}

    # ---- floors, measured in this run
    spawn = [], []
    hello = []
    for _ in range(R):
        out = subprocess.run(["java", *JVM_FLAGS, "-cp", BENCH_JAR, "io.gpusched.bench.SpawnFloor", "200"],
                             capture_output=True, text=True).stdout
        v = dict(l.split() for l in out.strip().splitlines())
        spawn[0].append(float(v["spawn_sh_ms"]))
        spawn[1].append(float(v["spawn_setsid_sh_ms"]))
        hello.append(run(["java", *JVM_FLAGS, "-cp", BENCH_JAR, "io.gpusched.bench.Hello"])[0])
    res["floor_spawn_sh_ms"] = stats(spawn[0])
    res["floor_spawn_setsid_sh_ms"] = stats(spawn[1])
    res["floor_jvm_hello_s"] = stats(hello)
    # CPU floor per job-shaped spawn (JVM side + setsid + sh, incl. children): marginal over 800 spawns
    cpuf = []
    for _ in range(R):
        c = [run(["java", *JVM_FLAGS, "-cp", BENCH_JAR, "io.gpusched.bench.SpawnFloor", str(k), "setsid-only"])[1]
             for k in (200, 1000)]
        cpuf.append((c[1] - c[0]) / 800 * 1000)
    res["floor_spawn_cpu_ms"] = stats(cpuf)

    # ---- 200 trivial jobs, default settings and --poll 0.05
    trivial = os.path.join(work, "trivial200.txt")
    write(trivial, ["[vram=1G] true"] * 200)
    for name, extra in (("trivial200_default", []), ("trivial200_poll005", ["--poll", "0.05"])):
        walls, cpus, rss = [], [], []
        for i in range(R):
            w, c, m, _ = run([GPUSCHED, trivial, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-" + name), *extra])
            walls.append(w); cpus.append(c / 200 * 1000); rss.append(m / 1024)
        res[name + "_wall_s"] = stats(walls)
        res[name + "_cpu_ms_per_job"] = stats(cpus)
        res[name + "_maxrss_mib"] = stats(rss)
    # marginal CPU per job: (CPU(1000 jobs) - CPU(200 jobs)) / 800, start-up cancels out
    big = os.path.join(work, "trivial1000.txt")
    write(big, ["[vram=1G] true"] * 1000)
    marg = []
    for i in range(R):
        c1000 = run([GPUSCHED, big, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-1000")])[1]
        c200 = run([GPUSCHED, trivial, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-200")])[1]
        marg.append((c1000 - c200) / 800 * 1000)
    res["trivial_marginal_cpu_ms_per_job"] = stats(marg)

    # ---- start-to-start gap of strictly serial jobs
    for poll in ("5", "0.05"):
        meds = []
        for i in range(R):
            stamps = os.path.join(work, f"stamps-{poll}-{i}")
            serial = os.path.join(work, "serial.txt")
            write(serial, [f"[vram=22G] date +%s%N >> {stamps}"] * 30)
            run([GPUSCHED, serial, "--sim", "1", "--fresh", "--poll", poll, "--log-dir", os.path.join(work, "l-serial")])
            t = [int(x) for x in open(stamps).read().split()]
            gaps = [(b - a) / 1e6 for a, b in zip(t, t[1:])]
            meds.append(statistics.median(gaps))
        res[f"serial_gap_ms_poll{poll}"] = stats(meds)

    # ---- packing: 40 sim jobs of 2-20 GiB, 0.7-3.2 s, --sim 2, defaults; makespan vs replay
    rnd = random.Random(5)
    lines = []
    for i in range(40):
        gib = rnd.randint(2, 20)
        dur = round(rnd.uniform(0.7, 3.2), 2)
        ramp = round(min(0.5, dur / 2), 2)
        hold = round(dur - ramp, 2)
        lines.append(f"[vram={gib}G] $GPUSCHED_SIMJOB --vram {gib * 1024 - 300} --ramp {ramp} --hold {hold}")
    packing = os.path.join(work, "packing.txt")
    write(packing, lines)
    sim = run([GPUSCHED, "simulate", packing, "--gpus-spec", "2x24000"])[3]
    replay_s = float(re.search(r"makespan ([0-9.]+)s", sim).group(1))
    ratios, spans = [], []
    for i in range(R):
        st, en = os.path.join(work, f"pk-start-{i}"), os.path.join(work, f"pk-end-{i}")
        wrapped = os.path.join(work, "packing-stamped.txt")
        write(wrapped, [re.sub(r"^(\[[^]]*\]) (.*)$", rf"\1 date +%s%N >> {st}; \2; date +%s%N >> {en}", l) for l in lines])
        run([GPUSCHED, wrapped, "--sim", "2", "--fresh", "--log-dir", os.path.join(work, "l-pack")])
        s = [int(x) for x in open(st).read().split()]
        e = [int(x) for x in open(en).read().split()]
        span = (max(e) - min(s)) / 1e9
        spans.append(span); ratios.append(span / replay_s)
    res["packing_replay_makespan_s"] = replay_s
    res["packing_makespan_s"] = stats(spans)
    res["packing_ratio"] = stats(ratios)

    # ---- 10,000 blocked lines: rounds in-process (RoundTimer), RSS through the CLI
    first, steady, steady0, loop_cpu, proc_cpu = [], [], [], [], []
    for i in range(R):
        o = subprocess.run(["java", *JVM_FLAGS, "-cp", BENCH_JAR, "io.gpusched.bench.RoundTimer", "10000", "60"],
                           capture_output=True, text=True).stdout
        v = dict(l.split() for l in o.strip().splitlines())
        first.append(float(v["first_round_ms"])); steady.append(float(v["steady_round_ms"]))
        loop_cpu.append(float(v["steady_round_loop_cpu_ms"])); proc_cpu.append(float(v["steady_round_process_cpu_ms"]))
        o = subprocess.run(["java", *JVM_FLAGS, "-cp", BENCH_JAR, "io.gpusched.bench.RoundTimer", "0", "60"],
                           capture_output=True, text=True).stdout
        steady0.append(float(dict(l.split() for l in o.strip().splitlines())["steady_round_ms"]))
    res["round_10k_first_ms"] = stats(first)
    res["round_10k_steady_ms"] = stats(steady)
    res["round_0_steady_ms"] = stats(steady0)
    res["round_10k_loop_cpu_ms"] = stats(loop_cpu)
    res["round_10k_process_cpu_ms"] = stats(proc_cpu)
    blocked = os.path.join(work, "blocked10k.txt")
    write(blocked, ["[vram=20G] sleep 30"] + [f"[vram=20G] echo blocked {i}" for i in range(10000)])
    rss = []
    for i in range(R):
        rss.append(run([GPUSCHED, blocked, "--sim", "1", "--fresh", "--poll", "0.05", "--log-dir",
                        os.path.join(work, "l-blocked")], kill_after=4)[2] / 1024)
    res["blocked10k_maxrss_mib"] = stats(rss)

    # ---- --version
    vw = [run([GPUSCHED, "--version"])[0] for _ in range(max(R, 10))]
    res["version_wall_s"] = stats(vw)

    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    out = os.path.join(ROOT, "bench", "results", time.strftime("e2e-%Y%m%d-%H%M%S.json"))
    res["machine"] = {"nproc": os.cpu_count(), "uname": " ".join(os.uname()),
                      "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
                      "java": subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0],
                      "runs": R}
    json.dump(res, open(out, "w"), indent=1)

    fl = res["floor_jvm_hello_s"]["median"]
    sp = res["floor_spawn_setsid_sh_ms"]["median"]
    rows = [
        ("floor: JVM hello world (launcher flags)", fmt(res["floor_jvm_hello_s"], "s", 1, 3), ""),
        ("floor: ProcessBuilder `sh -c true` / `setsid sh -c true`",
         f"{fmt(res['floor_spawn_sh_ms'], 'ms')} / {fmt(res['floor_spawn_setsid_sh_ms'], 'ms')}", ""),
        ("200 trivial jobs, `--sim 2`, defaults (wall)", fmt(res["trivial200_default_wall_s"], "s"),
         f"{res['trivial200_default_wall_s']['median'] / fl:.1f}× JVM floor"),
        ("same at `--poll 0.05`", fmt(res["trivial200_poll005_wall_s"], "s"),
         f"{res['trivial200_poll005_wall_s']['median'] / fl:.1f}× JVM floor"),
        ("serial start-to-start gap, poll 5", fmt(res["serial_gap_ms_poll5"], "ms"),
         f"{res['serial_gap_ms_poll5']['median'] / sp:.1f}× setsid spawn"),
        ("serial start-to-start gap, poll 0.05", fmt(res["serial_gap_ms_poll0.05"], "ms"),
         f"{res['serial_gap_ms_poll0.05']['median'] / sp:.1f}× setsid spawn"),
        ("CPU per trivial job (user+sys incl. children / 200)", fmt(res["trivial200_default_cpu_ms_per_job"], "ms"),
         f"marginal (1000−200 jobs)/800: {fmt(res['trivial_marginal_cpu_ms_per_job'], 'ms')}; "
         f"spawn CPU floor {fmt(res['floor_spawn_cpu_ms'], 'ms')}"),
        ("packing: makespan / replay", fmt(res["packing_ratio"], "×", 1, 3),
         f"makespan {fmt(res['packing_makespan_s'], 's')}, replay {replay_s:.2f} s"),
        ("round, 10,000 blocked lines, nothing changed", fmt(res["round_10k_steady_ms"], "ms"),
         f"timer floor (0 lines) {fmt(res['round_0_steady_ms'], 'ms')}"),
        ("same, CPU per round: event loop thread / whole JVM", f"{fmt(res['round_10k_loop_cpu_ms'], 'ms', 1, 3)} / "
         f"{fmt(res['round_10k_process_cpu_ms'], 'ms', 1, 3)}", "direct: no timer floor"),
        ("first round, 10,000 new lines", fmt(res["round_10k_first_ms"], "ms"), ""),
        ("max RSS: 200 trivial jobs", fmt(res["trivial200_default_maxrss_mib"], "MiB", 1, 1), ""),
        ("max RSS: 10,000 blocked lines", fmt(res["blocked10k_maxrss_mib"], "MiB", 1, 1), ""),
        ("`gpusched --version` wall", fmt(res["version_wall_s"], "s", 1, 3),
         f"{res['version_wall_s']['median'] / fl:.2f}× JVM floor"),
    ]
    print(f"| case | ours: median [min–max], {R} runs | vs floor |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print(f"\nraw: {os.path.relpath(out, ROOT)}; machine: {res['machine']}")


if __name__ == "__main__":
    main()
