#!/usr/bin/env python3
"""Steady state of bench/replay/ab.sh's output (or ab-base.sh's, per build): the median CPU ms of each case's
"old" and "new" rows over rounds FIRST..LAST (default: the last 20 rounds of the output), their ratio, and whether old
and new gave the same makespans in every round. Usage: bench/replay/ab.sh 200 | bench/replay/steady.py [FIRST LAST]"""
import re
import statistics
import sys

lines = sys.stdin.readlines()
rounds = [int(m.group(1)) for m in (re.search(r'round (\d+) ', l) for l in lines) if m]
first, last = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (max(0, max(rounds, default=0) - 19), max(rounds, default=0))
cpu, hashes = {}, {}
for line in lines:
    m = re.match(r'(?:(\w+) )?round (\d+) (old|new)\s+(.*?)\s+wall\s+\d+ ms cpu\s+(\d+) ms makespans (\w+)', line)
    if not m:
        continue
    build, rnd, which, case, ms, digest = m.group(1) or "", int(m.group(2)), m.group(3), m.group(4), int(m.group(5)), m.group(6)
    hashes.setdefault((build, case), set()).add(digest)
    if first <= rnd <= last:
        cpu.setdefault((build, case), {}).setdefault(which, []).append(ms)
print(f"median CPU ms of rounds {first}-{last}")
for (build, case), d in cpu.items():
    o, n = statistics.median(d.get("old", [0])), statistics.median(d.get("new", [0]))
    same = "same makespans" if len(hashes[(build, case)]) == 1 else "MAKESPANS DIFFER"
    ratio = f"{n / o:5.2f}" if o else "  n/a"
    print(f"{build:5} {case[:55]:55} old {o:6.1f} new {n:6.1f} new/old {ratio}  {same}")
