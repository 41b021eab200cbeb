#!/usr/bin/env python3
"""Turns each harness's output (bench/all.sh's raw logs) into rows of bench/all.sh's results file.

One row: id, checkout (final or base), median, min, max, n, unit, command, note. A figure the log does
not hold (the harness failed, or the base cannot produce it) becomes a row whose median is "n/c" and whose
note says why, so bench/current.py can say "not comparable" instead of the run failing.
usage: bench/all_rows.py SECTION RESULTS.tsv ARGS...   (called by bench/all.sh; see its sections)
"""
import json, os, re, statistics, sys


def emit(out, rid, checkout, values, unit, command, note=""):
    """Appends one row; values: numbers (their median [min-max]) or a string (a reason: "n/c")."""
    with open(out, "a") as f:
        if isinstance(values, str):
            f.write(f"{rid}\t{checkout}\tn/c\t\t\t0\t{unit}\t{command}\t{values}{'; ' + note if note else ''}\n")
            return
        vs = [float(v) for v in values]
        if not vs:
            f.write(f"{rid}\t{checkout}\tn/c\t\t\t0\t{unit}\t{command}\tno figure in the harness's output{'; ' + note if note else ''}\n")
            return
        f.write(f"{rid}\t{checkout}\t{statistics.median(vs):g}\t{min(vs):g}\t{max(vs):g}\t{len(vs)}\t{unit}\t{command}\t{note}\n")


def text(path):
    try:
        return open(path, errors="replace").read()
    except OSError:
        return ""


def tail(path, n=2):
    """The log's last lines, for a row's note when the harness failed."""
    lines = [l.strip() for l in text(path).splitlines() if l.strip()]
    return " / ".join(lines[-n:])[:300].replace("\t", " ")


def nums(pattern, s, group=1):
    return [float(m.group(group)) for m in re.finditer(pattern, s, re.M)]


def row(out, rid, checkout, values, unit, command, note=""):
    emit(out, rid, checkout, values if values.startswith("n/c") else values.split(), unit, command, note)


def ab(out, log, checkout, lines, rounds, queued, trips):
    s = text(log)
    t = [l.split() for l in s.splitlines() if l.startswith(checkout + " trivial ")]
    cmd200 = "/usr/bin/time -f '%e %U %S %M' bin/gpusched t200.txt --sim 2 --fresh (200 × '[vram=1G] true')"
    why = "" if t else "no run finished: " + tail(log)
    emit(out, "ab.t200.wall", checkout, [float(p[2]) for p in t] or why, "s", cmd200)
    emit(out, "ab.t200.cpu", checkout, [(float(p[3]) + float(p[4])) / 200 * 1000 for p in t] or why, "ms/job", cmd200,
         "user+sys of the run and its children / 200")
    emit(out, "ab.t200.rss", checkout, [float(p[5]) / 1024 for p in t] or why, "MiB", cmd200, "max RSS (GNU time %M)")
    rcmd = (f"java <bin/gpusched's flags> -cp gpusched-cli/target/gpusched.jar "
            f"bench/jmh/src/main/java/io/gpusched/bench/RoundTimer.java {lines} {rounds}")
    r = [dict(kv.split("=", 1) for kv in l.split()[2:]) for l in s.splitlines() if l.startswith(checkout + " rounds")]
    for rid, key, unit in (("ab.round.first", "first_round_ms", "ms"), ("ab.round.steady", "steady_round_ms", "ms"),
                           ("ab.round.loopcpu", "steady_round_loop_cpu_ms", "ms")):
        vs = [float(x[key]) for x in r if key in x]
        emit(out, rid, checkout, vs or ("RoundTimer printed nothing (its source does not compile against this jar, or failed)"
                                        if r else "no RoundTimer run"), unit, rcmd)
    scmd = f"java -cp gpusched-cli/target/gpusched.jar bench/service/SubmitBench.java {queued} {trips}"
    sb = [l for l in s.splitlines() if l.startswith(checkout + " sb ")]
    med = nums(r"round trip median ([0-9.]+) ms", "\n".join(sb))
    why = "" if med else "SubmitBench printed no figure: " + (" / ".join(sb[-2:])[:300] or "no run")
    emit(out, "ab.sb.median", checkout, med or why, "ms", scmd)
    emit(out, "ab.sb.p99", checkout, nums(r"p99 ([0-9.]+) ms", "\n".join(sb)) or why, "ms", scmd)
    emit(out, "ab.sb.clients", checkout, nums(r"from 10 clients at once: ([0-9.]+) s", "\n".join(sb)) or why, "s", scmd,
         "1,000 submissions from 10 clients at once, wall")


def spawnab(out, log, command):
    """bench/spawn/ab.py prints medians [min–max] only; n is its --runs."""
    s = text(log)
    n = re.search(r"\((\d+) rounds", s)
    for rid, label, unit in (("ab.gap", "serial start-to-start gap", "ms"), ("ab.sp.wall", "200 trivial jobs, wall", "s"),
                             ("ab.sp.cpu", "CPU per trivial job", "ms/job")):
        m = re.search(re.escape(label) + r"[^|]*\| ([0-9.]+) \[([0-9.]+)–([0-9.]+)\] \| ([0-9.]+) \[([0-9.]+)–([0-9.]+)\]", s)
        for checkout, g in (("base", 1), ("final", 4)):
            if m:
                with open(out, "a") as f:
                    f.write(f"{rid}\t{checkout}\t{float(m.group(g)):g}\t{float(m.group(g + 1)):g}\t{float(m.group(g + 2)):g}"
                            f"\t{n.group(1) if n else '?'}\t{unit}\t{command}\tinterleaved with the other checkout\n")
            else:
                emit(out, rid, checkout, "bench/spawn/ab.py failed: " + tail(log), unit, command)


def jmh(out, log, checkout, command):
    # One line per benchmark and run, as JMH prints its summary: "TAG AllocatorBench.placeFits avgt 5 3.41 ± 0.68 us/op".
    s = text(log)
    failed = re.search(rf"^{checkout} build failed: (.*)$", s, re.M)
    for rid, name in (("jmh.alloc.fits", "AllocatorBench.placeFits"), ("jmh.alloc.blocked", "AllocatorBench.placeBlocked"),
                      ("jmh.parse10k", "ParserBench.parse10k")):
        found = re.findall(rf"^{checkout} {re.escape(name)}\s+avgt\s+\d+\s+([0-9.]+)\s+±\s+\S+\s+(\S+)$", s, re.M)
        if not found:
            emit(out, rid, checkout, "n/c: " + (failed.group(1)[:200] if failed else "no JMH line for " + name), "", command)
            continue
        units = {u for _, u in found}
        emit(out, rid, checkout, [v for v, _ in found], "/".join(sorted(units)).replace("/op", "").replace("us", "µs"), command,
             "score of each run (JMH avgt: 1 fork, 3 x 1 s warm-up, 5 x 1 s measured); interleaved with the other checkout")


def tsp(out, log, root, command):
    m = re.search(r"raw: (\S+\.json)", text(log))
    if not m:
        for rid in ("tsp.gap", "tsp.t200", "tsp.cpu", "tsp.queue", "tsp.version", "tsp.submit"):
            emit(out, rid, "final", "bench/vs_tsp.py failed: " + tail(log), "", command)
        return
    r = json.load(open(os.path.join(root, m.group(1))))

    def st(d, scale=1.0):
        return d["median"] * scale, d["min"] * scale, d["max"] * scale, d["n"]

    def put(rid, who, d, unit, scale=1.0, note=""):
        med, lo, hi, n = st(d, scale)
        with open(out, "a") as f:
            f.write(f"{rid}\t{who}\t{med:.4g}\t{lo:.4g}\t{hi:.4g}\t{n}\t{unit}\t{command}\t{note}\n")

    put("tsp.gap", "final", r["serial_gap_ms"]["gpusched"], "ms")
    put("tsp.gap", "tsp", r["serial_gap_ms"]["tsp"], "ms")
    put("tsp.t200", "final", r["trivial200_wall_s"]["gpusched"], "s")
    put("tsp.t200", "tsp", r["trivial200_wall_s"]["tsp"], "s", note="200 client calls `tsp true` until idle")
    put("tsp.cpu", "final", r["cpu_ms_per_job"]["gpusched"], "ms/job", note="everything included")
    put("tsp.cpu", "tsp", r["cpu_ms_per_job"]["tsp"], "ms/job", note="clients + server + jobs")
    put("tsp.queue", "final", r["client_verb_s"]["gpusched queue"], "ms", 1000)
    put("tsp.queue", "tsp", r["client_verb_s"]["tsp -l"], "ms", 1000, note="tsp -l")
    put("tsp.version", "final", r["client_verb_s"]["gpusched --version"], "ms", 1000)
    ours = r["submit_rt_ms"]["gpusched"]["median"]
    emit(out, "tsp.submit", "final", [ours] if ours == ours else "SubmitBench printed no figure", "ms", command,
         "SubmitBench, one run (in-process client)")
    put("tsp.submit", "tsp", r["submit_rt_ms"]["tsp"], "ms", note=f"`tsp true` with {r.get('tsp_backlog')} queued (its limit)")


LAB = (("fill", r"^fill {q} ([0-9.]+)", "s"), ("rt", r"^trips median_ms ([0-9.]+)", "ms"),
       ("p99", r"^trips median_ms [0-9.]+ p99_ms ([0-9.]+)", "ms"), ("clients", r"^clients per_s ([0-9.]+)", "/s"),
       ("queue", r"^queue_ms ([0-9.]+)", "ms"), ("version", r"^queue_ms [0-9.]+ version_ms ([0-9.]+)", "ms"),
       ("rss", r"^rss_mib ([0-9.]+)", "MiB"), ("idle", r"^idle_cpu_ms_per_s ([0-9.]+)", "ms/s"),
       ("tsp_rt", r"^tsp_true median_ms ([0-9.]+)", "ms"), ("tsp_p99", r"^tsp_true median_ms [0-9.]+ p99_ms ([0-9.]+)", "ms"),
       ("tsp_l", r"^tsp_l_ms ([0-9.]+)", "ms"))


def lab(out, log, checkout, command, *sizes):
    s = text(log)
    blocks = re.split(r"^== run \d+, (\d+) queued.*$", s, flags=re.M)
    per = {}
    for q, body in zip(blocks[1::2], blocks[2::2]):
        per.setdefault(q, []).append(body)
    failed = re.search(r"^exit ([1-9]\d*)", s, re.M)
    for q in sizes:
        body = "\n".join(per.get(q, []))
        for key, pat, unit in LAB:
            vs = nums(pat.replace("{q}", q), body)
            who = checkout
            if key.startswith("tsp"):
                if checkout != "final":
                    continue  # task-spooler is measured beside the final checkout only
                who = "tsp"
            note = ""
            if not vs:
                why = "lab_scale.sh stopped before this figure"
                if "request longer than" in s or "went away" in s:
                    why += " (`gpusched queue` fails at this size: " + (re.search(r"(request longer than \d+ bytes)", s) or
                                                                         re.search(r"(went away[^\n]*)", s)).group(1) + ")"
                elif failed:
                    why += f" (exit {failed.group(1)}: {tail(log, 1)})"
                vs = why
            emit(out, f"lab.{q}.{key}", who, vs, unit, command, note)


def labalt(out, log, command):
    """bench/lab_alt.sh: both daemons' lone-client medians and p99s, one value per run."""
    s = text(log)
    base_med = nums(r"^alt run \d+ base median_ms ([0-9.]+)", s)
    slow = sum(1 for m in base_med if m > 10)
    note = (f"{slow} of {len(base_med)} runs with the base in its slow mode (median over 10 ms: its deferred rounds "
            "over the queue, which slow the other daemon's trips too)") if slow else ""
    for who in ("base", "final"):
        for rid, key in (("ab.alt.rt", "median_ms"), ("ab.alt.p99", "p99_ms")):
            vs = nums(rf"^alt run \d+ {who} median_ms ([0-9.]+) p99_ms ([0-9.]+)", s, 1 if key == "median_ms" else 2)
            emit(out, rid, who, vs or ("lab_alt.sh printed nothing: " + tail(log)), "ms", command, note)


def idle(out, log, checkout, command, note=""):
    s = text(log)
    vs = nums(r"idle round loop cpu median_ms ([0-9.]+)", s)
    emit(out, "idle.round", checkout, vs or ("IdleRound printed nothing: " + tail(log)), "ms", command,
         "loop-thread CPU per idle round, each value a run's median" + ("; " + note if note else ""))


def start(out, log, runlog, root, base, n):
    s, r = text(log), text(runlog)
    ab = f"N={n} bench/startup-ab.sh {'BASE' if base else '.'} ."
    for what, rid in (("--version", "start.version"), ("queue", "start.queue")):
        m = re.search(r"^" + re.escape(what) + r"\s+wall median A ([0-9.]+) ms, B ([0-9.]+) ms; cpu median A ([0-9.]+) ms, B ([0-9.]+) ms"
                      r"\n\s+wall A: ([0-9. ]+)\n\s+wall B: ([0-9. ]+)", s, re.M)
        for who, g in ((("base", 0), ("final", 1)) if base else (("final", 1),)):
            if not m:
                emit(out, rid + ".wall", who, "bench/startup-ab.sh failed: " + tail(log), "ms", ab)
                emit(out, rid + ".cpu", who, "bench/startup-ab.sh failed: " + tail(log), "ms", ab)
                continue
            emit(out, rid + ".wall", who, m.group(5 + g).split(), "ms", ab, "through bin/gpusched; GNU time, 10 ms steps")
            emit(out, rid + ".cpu", who, [m.group(3 + g)], "ms", ab, "median only (the harness prints no per-run CPU)")
    rc = f"N={n} bench/run-startup-ab.sh {'BASE ' if base else ''}."
    runs = re.findall(r"^run (\S+): wall median ([0-9.]+) ms, cpu median ([0-9.]+) ms; cpu: ([0-9 .]+)$", r, re.M)
    for d, wall, _, cpus in runs:
        who = "final" if os.path.realpath(d) == os.path.realpath(root) else "base"
        emit(out, "start.run.wall", who, [wall], "ms", rc, "one-job run; median only (the harness prints no per-run wall)")
        emit(out, "start.run.cpu", who, cpus.split(), "ms", rc, "one-job run, user+sys")
    if not runs:
        emit(out, "start.run.wall", "final", "bench/run-startup-ab.sh failed: " + tail(runlog), "ms", rc)


def replay(out, log, command, warmup="1"):
    # Rounds before WARMUP are the JIT's warm-up (the engine has far more code to compile than the former
    # loop had): the rows are the steady state, as a benchmark's measurement is.
    warmup = int(warmup)
    s = text(log)
    rows = re.findall(r"^round (\d+) (old|new)\s+(.+?)\s+wall\s+(\d+) ms cpu\s+(\d+) ms makespans (\S+)", s, re.M)
    if not rows:
        emit(out, "replay", "final", "bench/replay/ab.sh failed: " + tail(log), "ms", command)
        return
    cases = []
    for _, _, name, *_ in rows:
        if name not in cases:
            cases.append(name)
    for i, name in enumerate(cases):
        hashes = {w: {h for r_, w_, n_, _, _, h in rows if n_ == name and w_ == w} for w in ("old", "new")}
        same = "same makespans" if hashes["old"] == hashes["new"] else "MAKESPANS DIFFER"
        for w, who in (("old", "old-loop"), ("new", "final")):
            vs = [float(c) for r_, w_, n_, _, c, _ in rows if n_ == name and w_ == w and int(r_) >= warmup]
            emit(out, f"replay.{i}", who, vs or "only warm-up rounds ran", "ms", command,
                 f"{name}; CPU of the replaying thread, rounds {warmup} and later (steady state); {same}")


def sim(out, log, rid, command):
    s = text(log)
    m = re.search(r"^makespan (\S+)", s, re.M)
    if not m:
        emit(out, f"sim.{rid}", "final", "simulate failed: " + tail(log), "s", command)
        return
    v = m.group(1)
    secs = sum(float(x) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[u] for x, u in re.findall(r"([0-9.]+)(ms|h|m|s)", v)) \
        if not re.fullmatch(r"[0-9.]+", v) else float(v)
    note = ""
    d = re.search(r"(\d+ of \d+ learning jobs[^\n]*)", s)
    if d:
        note = d.group(1)[:200]
    if rid.startswith("starv"):
        b = re.search(r"^.*big\.py.*$", s, re.M)
        note = ("the 4-GPU job: " + b.group(0).strip()[:200]) if b else "no big.py line in --jobs"
    emit(out, f"sim.{rid}", "final", [secs], "s", command, f"makespan as printed: {v}; " + note)


def dash(out, log, command):
    s = text(log)
    b = nums(r"^run \d+: ([0-9.]+) bytes/s", s)
    c = nums(r"daemon CPU ([0-9.]+) % of a core", "\n".join(l for l in s.splitlines() if l.startswith("run ")))
    emit(out, "dash.bps", "final", b or ("dashboard_events.sh failed: " + tail(log)), "B/s", command)
    emit(out, "dash.cpu", "final", c or ("dashboard_events.sh failed: " + tail(log)), "% of a core", command)


def qscale(out, log, command):
    s = text(log)
    runs = re.findall(r"^gpusched queue as nobody: (\d+) ms, exit (\d+), (\d+) lines", s, re.M)
    ok = [float(w) for w, code, _ in runs if code == "0"]
    why = "queue_scale.sh failed: " + tail(log) if not runs else "every `gpusched queue` failed: " + tail(log)
    emit(out, "qscale.wall", "final", ok or why, "ms", command, f"lines printed: {runs[0][2] if runs else '?'}")
    emit(out, "qscale.rss", "final", nums(r"^daemon RSS: (\d+) MiB", s) or why, "MiB", command)


def flood(out, log, command):
    s = text(log)
    for rid, label in (("flood.rest", "at rest"), ("flood.idle3000", "3000 idle connections"),
                       ("flood.partial200", "200 partial 1 MiB lines")):
        m = re.search(r"^" + re.escape(label) + r"\s+VmRSS\s+(\d+) MiB\s+VmHWM\s+(\d+) MiB\s+threads\s+(\d+)\s+queue round trip ms: max (\S+)",
                      s, re.M)
        if not m:
            emit(out, rid + ".rss", "final", "flood.sh failed: " + tail(log), "MiB", command)
            continue
        emit(out, rid + ".rss", "final", [m.group(1)], "MiB", command, f"VmHWM {m.group(2)} MiB")
        emit(out, rid + ".threads", "final", [m.group(3)], "threads", command)
        emit(out, rid + ".queue", "final", [m.group(4)], "ms", command, "root's queue round trip, max of 5")


if __name__ == "__main__":
    fn = {"row": row, "ab": ab, "jmh": jmh, "spawnab": spawnab, "tsp": tsp, "lab": lab, "labalt": labalt, "idle": idle, "start": start,
          "replay": replay, "sim": sim, "dash": dash, "qscale": qscale, "flood": flood}
    if len(sys.argv) < 3 or sys.argv[1] not in fn:
        sys.exit("usage: bench/all_rows.py SECTION RESULTS.tsv ARGS... (SECTION: " + ", ".join(fn) + ")")
    try:
        fn[sys.argv[1]](*sys.argv[2:])
    except Exception as e:  # a parser's failure must not stop the run: one row says what broke
        emit(sys.argv[2], f"{sys.argv[1]}.parse", "final", f"n/c: bench/all_rows.py {sys.argv[1]} failed: {e!r}"[:300], "", "")
