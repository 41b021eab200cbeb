#!/usr/bin/env python3
"""Writes BENCHMARKS.md's "Current figures" tables from one bench/all.sh results file.

usage: bench/current.py RESULTS.tsv                   # prints the tables (Markdown)
       bench/current.py RESULTS.tsv --write BENCHMARKS.md
With --write, the text between the lines `<!-- all.sh:begin -->` and `<!-- all.sh:end -->` is replaced;
nothing else in the file changes. Every value comes from the results file: median [min–max] (runs);
"n/c" where the checkout could not produce the figure, with the reason. Verdicts are computed here from
the same rows (#27's targets; #24's rule that no benchmark regresses by more than 10 %).
"""
import argparse, collections, re, sys

ap = argparse.ArgumentParser()
ap.add_argument("results")
ap.add_argument("--write", metavar="BENCHMARKS_MD")
a = ap.parse_args()

meta, rows = {}, collections.OrderedDict()
for line in open(a.results):
    line = line.rstrip("\n")
    if line.startswith("# "):
        k, _, v = line[2:].partition("\t")
        meta[k] = v
        continue
    p = line.split("\t")
    if len(p) < 9 or p[0] == "id":
        continue
    rid, who, med, lo, hi, n, unit, cmd, note = p[:9]
    rows[(rid, who)] = dict(med=None if med == "n/c" else float(med), lo=lo, hi=hi, n=n, unit=unit, cmd=cmd, note=note)


def get(rid, who="final"):
    return rows.get((rid, who))


def num(x):
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:#.3g}" if abs(x) < 10 else f"{x:.1f}"


def val(r, brief=False):
    if r is None:
        return "—"
    if r["med"] is None:
        return "n/c" if brief else f"n/c ({r['note']})"
    s = f"{num(r['med'])} {r['unit']}"
    if r["n"] not in ("1", "0") and r["lo"] != "" and float(r["lo"]) != float(r["hi"]):
        s += f" [{num(float(r['lo']))}–{num(float(r['hi']))}]"
    return s + ("" if brief else f" ({r['n']})")


base = "base" in meta
bname = meta["base"].split("\t")[1][:7] if base else "base"
fname = meta.get("final", "\t?").split("\t")[1][:7]
out = []
w = out.append
w(f"Measured by `bench/all.sh{' --base ' + meta['base'].split(chr(9))[0] if base else ''}` on {meta.get('date', '?')}; "
  f"final = `{meta.get('final', '?').split(chr(9), 1)[-1]}`" + (f", base = `{meta['base'].split(chr(9), 1)[-1]}`" if base else "") + ".")
w(f"Machine: {meta.get('machine', '?')}; {meta.get('java', '?').strip()}. Load average before "
  f"{meta.get('loadavg_before', '?')}, after {meta.get('loadavg_after', '?')}; the run took {meta.get('duration_s', '?')} s. "
  f"Settings: `{meta.get('settings', '?')}`. Values: median [min–max] (runs); raw logs beside the results file.")
w("")

# ---------------------------------------------------------------- #27's targets
w("#### Issue #27's targets, beside task-spooler")
w("")
w(f"| target | before ({bname}) | final ({fname}) | task-spooler, same run | verdict |")
w("|---|---|---|---|---|")


def verdict(ok):
    return "—" if ok is None else ("met" if ok else "**missed**")


def med(rid, who="final"):
    r = get(rid, who)
    return None if r is None or r["med"] is None else r["med"]


def ab_before(rid):
    """The base's figure from the interleaved A/B, with the final's figure of the same A/B beside it: the
    final column of these rows comes from vs_tsp.py's run, a different run, so only this pair compares."""
    b = get(rid, "base")
    if b is None:
        return "—"
    return f"{val(b, True)} (same A/B, final: {val(get(rid), True)})"


sizes = sorted({int(k[0].split(".")[1]) for k in rows if k[0].startswith("lab.") and k[0].split(".")[1].isdigit()})
for q in sizes:
    rt, tsp_rt = med(f"lab.{q}.rt"), med(f"lab.{q}.tsp_rt", "tsp")
    ok = None if rt is None else (rt <= 2 and (tsp_rt is None or rt <= tsp_rt))
    w(f"| submit round trip median ≤ 2 ms and ≤ `tsp true`'s, {q:,} queued (lab_scale) | {val(get(f'lab.{q}.rt', 'base'), True)} "
      f"| {val(get(f'lab.{q}.rt'), True)} | {val(get(f'lab.{q}.tsp_rt', 'tsp'), True)} | {verdict(ok)} |")
    p = med(f"lab.{q}.p99")
    w(f"| submit p99 ≤ 10 ms, {q:,} queued | {val(get(f'lab.{q}.p99', 'base'), True)} | {val(get(f'lab.{q}.p99'), True)} "
      f"| {val(get(f'lab.{q}.tsp_p99', 'tsp'), True)} | {verdict(None if p is None else p <= 10)} |")
    c = med(f"lab.{q}.clients")
    w(f"| ≥ 2,000 submissions/s from 10 clients, {q:,} queued | {val(get(f'lab.{q}.clients', 'base'), True)} "
      f"| {val(get(f'lab.{q}.clients'), True)} | — | {verdict(None if c is None else c >= 2000)} |")
    qq, vv = med(f"lab.{q}.queue"), med(f"lab.{q}.version")
    ratio = f" ({qq / vv:.1f}×)" if qq and vv else ""
    w(f"| `gpusched queue` ≤ 1.5 × `gpusched --version`, {q:,} queued | {val(get(f'lab.{q}.queue', 'base'), True)} "
      f"| {val(get(f'lab.{q}.queue'), True)} / {val(get(f'lab.{q}.version'), True)}{ratio} "
      f"| `tsp -l` {val(get(f'lab.{q}.tsp_l', 'tsp'), True)} | {verdict(None if not (qq and vv) else qq <= 1.5 * vv)} |")
if 100000 in sizes:
    r = med("lab.100000.rss")
    w(f"| daemon RSS ≤ 256 MiB, 100,000 queued | {val(get('lab.100000.rss', 'base'), True)} | {val(get('lab.100000.rss'), True)} "
      f"| — | {verdict(None if r is None else r <= 256)} |")
if 10000 in sizes:
    w(f"| idle CPU ≤ 0.05 × the original's, 10,000 blocked | {val(get('lab.10000.idle', 'base'), True)} "
      f"| {val(get('lab.10000.idle'), True)} | — | not judged: the Python original is not measured by this script |")
i = med("idle.round")
w(f"| a round with 100,000 pending and nothing changed ≤ 2 ms (IdleRound, loop CPU) | {val(get('idle.round', 'base'), True)} "
  f"| {val(get('idle.round'), True)} | — | {verdict(None if i is None else i <= 2)} |")
g, tg = med("tsp.gap"), med("tsp.gap", "tsp")
w(f"| serial start-to-start gap ≤ 2 × task-spooler's | {ab_before('ab.gap')} | {val(get('tsp.gap'), True)} "
  f"| {val(get('tsp.gap', 'tsp'), True)} | {verdict(None if g is None or tg is None else g <= 2 * tg)} |")
c = med("tsp.cpu")
w(f"| CPU per trivial job ≤ 3 ms, everything included | {ab_before('ab.sp.cpu')} | {val(get('tsp.cpu'), True)} "
  f"| {val(get('tsp.cpu', 'tsp'), True)} | {verdict(None if c is None else c <= 3)} |")
q = med("tsp.queue")
w(f"| `gpusched queue` ≤ 80 ms wall (idle daemon) | {ab_before('start.queue.wall')} | {val(get('tsp.queue'), True)} "
  f"| `tsp -l` {val(get('tsp.queue', 'tsp'), True)} | {verdict(None if q is None else q <= 80)} |")
w("")
w("The before column comes from the interleaved A/B (rows `ab.gap`, `ab.sp.cpu`, `start.queue.wall`, with the "
  "final checkout's figure of the same A/B in brackets) and from the base's own lab-scale run (`lab.*`, not "
  "interleaved); the final column and task-spooler's come from one run of `bench/vs_tsp.py` and `bench/lab_scale.sh`.")
w("")

# ---------------------------------------------------------------- #24's A/B
if base:
    w(f"#### Issue #24's A/B: {bname} (before) against {fname} (after), interleaved")
    w("")
    w(f"| row | {bname} | {fname} | change | ≤ +10 %? |")
    w("|---|---|---|---|---|")
    alt = get("ab.alt.rt", "base")
    m = re.search(r"QUEUED=(\d+)", alt["cmd"]) if alt else None
    alt_queued = f"{int(m.group(1)):,}" if m else "10,000"
    higher_better = {"lab.10000.clients"}
    for rid, label in (("ab.t200.wall", "200 trivial jobs, wall"), ("ab.t200.cpu", "CPU per trivial job"),
                       ("ab.t200.rss", "max RSS, 200 trivial jobs"), ("ab.gap", "serial start-to-start gap (spawn/ab.py)"),
                       ("ab.round.first", "RoundTimer: first round over 10,000 new lines"),
                       ("ab.round.steady", "RoundTimer: steady round, wall"), ("ab.round.loopcpu", "RoundTimer: loop CPU per round"),
                       ("ab.sb.median", "SubmitBench: submit round trip median"), ("ab.sb.p99", "SubmitBench: p99"),
                       ("ab.sb.clients", "SubmitBench: 1,000 submissions from 10 clients, wall"),
                       ("jmh.alloc.fits", "JMH AllocatorBench.placeFits: one placement, 8 GPUs x 64 jobs"),
                       ("jmh.alloc.blocked", "JMH AllocatorBench.placeBlocked: one blocked placement, its reason"),
                       ("jmh.parse10k", "JMH ParserBench.parse10k: 10,000 jobs-file lines"),
                       ("start.version.wall", "`gpusched --version` wall"), ("start.queue.wall", "`gpusched queue` wall, idle daemon"),
                       ("start.run.cpu", "one-job run, CPU"),
                       ("ab.alt.rt", f"real daemon, {alt_queued} queued: submit median, both daemons alternated trip by trip (lab_alt.sh)"),
                       ("ab.alt.p99", f"real daemon, {alt_queued} queued: submit p99, alternated (lab_alt.sh)"),
                       ("lab.10000.rt", "real daemon, 10,000 queued: submit median (not interleaved)"),
                       ("lab.10000.clients", "real daemon, 10,000 queued: submissions/s (not interleaved)"),
                       ("idle.round", "IdleRound: idle round, loop CPU"),
                       ("sim.lines.wall", "`gpusched simulate`, generated lines over 4 GPUs, wall"),
                       ("sim.lines.cpu", "`gpusched simulate`, generated lines over 4 GPUs, CPU")):
        b, f = get(rid, "base"), get(rid)
        if b is None and f is None:
            continue
        if b and f and b["med"] is not None and f["med"] is not None and b["med"] > 0:
            ch = f["med"] / b["med"] - 1
            worse = -ch if rid in higher_better else ch
            judged = "yes" if worse <= 0.10 else "**no**"
            slow = re.match(r"(\d+) of (\d+) runs with the base in its slow mode", b.get("note") or "")
            if rid.startswith("ab.alt.") and slow and 2 * int(slow.group(1)) > int(slow.group(2)):
                # Its deferred rounds then slow both daemons' trips: neither figure is the daemon's own.
                judged = f"— (not judged: the base in its slow mode in {slow.group(1)} of {slow.group(2)} runs)"
            w(f"| {label} | {val(b, True)} | {val(f, True)} | {ch * 100:+.1f} % | {judged} |")
        else:
            why = (b or {}).get("note") if (b is None or b["med"] is None) else (f or {}).get("note")
            w(f"| {label} | {val(b, True)} | {val(f, True)} | not comparable: {why or 'no figure'} | — |")
    w("")

# ---------------------------------------------------------------- every row
w("#### Every figure of this run")
w("")
cols = [("final", f"final ({fname})")] + ([("base", f"base ({bname})")] if base else []) + [("tsp", "task-spooler"), ("old-loop", "former replay loop")]
cols = [c for c in cols if any(k[1] == c[0] for k in rows)]
w("| id | " + " | ".join(c[1] for c in cols) + " | command | note |")
w("|---|" + "---|" * len(cols) + "---|---|")
for rid in dict.fromkeys(k[0] for k in rows):
    rs = {who: rows[(rid, who)] for who, _ in cols if (rid, who) in rows}
    first = next(iter(rs.values()))
    notes = "; ".join(dict.fromkeys(r["note"] for r in rs.values() if r["note"] and r["med"] is not None))
    cells = [val(rs.get(who), True) if rs.get(who) is None or rs[who]["med"] is not None else f"n/c: {rs[who]['note']}"
             for who, _ in cols]
    w(f"| `{rid}` | " + " | ".join(c.replace("|", "\\|") for c in cells) + f" | `{first['cmd']}` | {notes.replace('|', '/')} |")

text = "\n".join(out) + "\n"
if a.write:
    doc = open(a.write).read()
    m = re.search(r"(<!-- all\.sh:begin -->\n).*?(<!-- all\.sh:end -->)", doc, re.S)
    if not m:
        sys.exit(f"bench/current.py: {a.write} has no '<!-- all.sh:begin -->' ... '<!-- all.sh:end -->' block to fill")
    open(a.write, "w").write(doc[:m.start()] + m.group(1) + text + m.group(2) + doc[m.end():])
    print(f"wrote the current figures into {a.write}")
else:
    sys.stdout.write(text)
