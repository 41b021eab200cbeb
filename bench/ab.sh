#!/usr/bin/env bash
# Interleaved A/B of commits on one machine: builds each commit's CLI and bench jars in a temporary
# clone, then runs, round-robin, RUNS times: 200 trivial jobs on --sim 2 (wall, CPU incl. children,
# max RSS via /usr/bin/time) and RoundTimer over 10,000 blocked lines (first round, steady round,
# loop CPU). Prints medians per commit.
# With SB=N it then runs bench/service/SubmitBench.java 10000 1000 (each commit's own copy and jar), N
# times per commit, interleaved, and prints its lines as they come.
# Usage: [SB=N] bench/ab.sh RUNS COMMIT...   e.g. SB=3 bench/ab.sh 5 251be76 HEAD
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="$1"; shift
work="$(mktemp -d)"
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
flags=("${jvm_flags[@]}")
for _ in $(seq 200); do echo '[vram=1G] true'; done > "$work/t200.txt"
for c in "$@"; do
  git clone -q "$root" "$work/$c" && git -C "$work/$c" checkout -q "$c"
  (cd "$work/$c" && mvn -o -q -B -DskipTests -Dmaven.javadoc.skip=true package -pl gpusched-cli -am >&2 \
    && mvn -o -q -B -DskipTests -Dmaven.javadoc.skip=true -Pbench package -pl bench/jmh -am >&2)
done
for i in $(seq "$runs"); do
  for c in "$@"; do
    rm -rf "$work/logs"
    /usr/bin/time -f "$c trivial %e %U %S %M" "$work/$c/bin/gpusched" "$work/t200.txt" --sim 2 --fresh \
      --log-dir "$work/logs" >/dev/null 2>>"$work/times"
    echo "$c rounds $(java "${flags[@]}" -cp "$work/$c/bench/jmh/target/benchmarks.jar" io.gpusched.bench.RoundTimer 10000 60 \
      | grep -E 'first_round_ms|steady_round_ms|loop_cpu' | awk '{print $2}' | tr '\n' ' ')" >> "$work/times"
  done
done
for _ in $(seq "${SB:-0}"); do
  for c in "$@"; do
    (cd "$work/$c" && java -cp gpusched-cli/target/gpusched.jar bench/service/SubmitBench.java 10000 1000 | sed "s/^/$c /")
  done
done
python3 - "$work/times" <<'PY'
import sys, statistics as st, collections
t, r = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) < 3:
        continue
    if p[1] == "trivial":
        e, u, s, m = map(float, p[2:6]); t[p[0]].append((e, (u + s) / 200 * 1000, m / 1024))
    elif p[1] == "rounds":
        r[p[0]].append(tuple(map(float, p[2:5])))
print("| commit | 200 jobs wall s | CPU/job ms | RSS MiB | first round ms | steady round ms | loop CPU ms |")
print("|---|---|---|---|---|---|---|")
for c in t:
    a, b = t[c], r[c]
    print(f"| {c} | {st.median(x[0] for x in a):.2f} | {st.median(x[1] for x in a):.2f} | {st.median(x[2] for x in a):.1f} "
          f"| {st.median(x[0] for x in b):.0f} | {st.median(x[1] for x in b):.2f} | {st.median(x[2] for x in b):.2f} |")
PY
rm -rf "$work"
