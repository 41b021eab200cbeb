#!/usr/bin/env bash
# Before/after of the engine-backed replay: bench/replay/ab.sh's ReplayAB (OldReplay against Replay, in one
# JVM) run on core's classes of BASE and on this tree's, in alternate JVMs, PAIRS times. The testkit is this
# tree's in both; only core differs. Compare each build's new/old CPU ratio and its "new" CPU per case (the
# "old" loop is the same code in both). Round 0 (JIT warm-up) is left out of the summary.
# Needs this tree built with its test classes:
#   mvn -B -q -o -pl gpusched-core,gpusched-testkit test-compile -Dmaven.javadoc.skip
# Usage: bench/replay/ab-base.sh BASE [PAIRS=2] [ROUNDS=5] [OLD=e04fd27]
# Steady state per build: bench/replay/ab-base.sh BASE 2 30 | bench/replay/steady.py
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base="$1"
pairs="${2:-2}"
rounds="${3:-5}"
old="${4:-e04fd27}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/io/gpusched/testkit/replay" "$work/base"
git -C "$root" show "$old:gpusched-testkit/src/main/java/io/gpusched/testkit/replay/Replay.java" \
  | sed 's/public final class Replay {/public final class OldReplay {/; s/public Replay(/public OldReplay(/g' \
  > "$work/src/io/gpusched/testkit/replay/OldReplay.java"
cp "$root/bench/replay/ReplayAB.java" "$work/src/io/gpusched/testkit/replay/"
(cd "$root/gpusched-core" && mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$work/deps.txt" >/dev/null)
deps="$root/gpusched-testkit/target/classes:$root/gpusched-testkit/target/test-classes:$(cat "$work/deps.txt")"
git -C "$root" archive "$base" gpusched-core/src/main/java | tar -x -C "$work/base"
find "$work/base" -name '*.java' ! -name module-info.java > "$work/base/sources.txt"
javac -nowarn -cp "$(cat "$work/deps.txt")" -d "$work/base/classes" @"$work/base/sources.txt"
javac -nowarn -cp "$root/gpusched-core/target/classes:$deps" -d "$work/classes" "$work"/src/io/gpusched/testkit/replay/*.java
for i in $(seq 1 "$pairs"); do
  for which in base tree; do
    core="$root/gpusched-core/target/classes"
    [ "$which" = base ] && core="$work/base/classes"
    java -cp "$work/classes:$core:$deps" io.gpusched.testkit.replay.ReplayAB "$rounds" "$root" | sed "s/^/$which /"
  done
done | tee "$work/out.txt"
python3 - "$work/out.txt" <<'PY'
import re, statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\w+) round (\d+) (old|new)\s+(.*?)\s+wall\s+\d+ ms cpu\s+(\d+) ms makespans (\w+)', line)
    if m and int(m.group(2)) > 0:
        rows.setdefault((m.group(4), m.group(1)), {}).setdefault(m.group(3), []).append(int(m.group(5)))
print("median CPU ms of rounds after round 0")
for (case, build), d in sorted(rows.items()):
    o, n = st.median(d["old"]), st.median(d["new"])
    print(f"{build:5} {case[:52]:52} old {o:7.1f} new {n:7.1f} new/old {n / o if o else float('nan'):6.2f}")
PY
