#!/usr/bin/env bash
# `gpusched queue` against `gpusched --version`, wall, for several builds at once, interleaved: each round runs
# each LABEL's `queue --socket SOCK` (output kept in $OUT/out.LABEL) then its `--version`; then the medians and
# queue/--version ratios (issue #27's target: queue within 1.5x --version). JVM flags: bin/gpusched's without the
# CDS archive, as bench/lab_scale.sh runs them. A benchmark, not a test: take medians on a quiet machine.
# Usage: bench/queue/verb_ab.sh ROUNDS LABEL:JAR:SOCK ...   env: OUT (a temp dir)
rounds=$1; shift; out="${OUT:-$(mktemp -d)}"
. "$(dirname "$0")/../jvm_flags.sh" || exit 2 # bin/gpusched's JVM flags, into jvm_flags
opts="${jvm_flags[*]}"
declare -A Q V
for r in $(seq $rounds); do
  for spec in "$@"; do
    IFS=: read -r label jar sock <<<"$spec"
    t0=$(date +%s%N); java $opts -cp "$jar" io.gpusched.cli.Main queue --socket "$sock" > "$out/out.$label"; t1=$(date +%s%N)
    java $opts -cp "$jar" io.gpusched.cli.Main --version >/dev/null; t2=$(date +%s%N)
    Q[$label]+=" $(( (t1-t0)/1000000 ))"; V[$label]+=" $(( (t2-t1)/1000000 ))"
  done
done
for spec in "$@"; do
  IFS=: read -r label jar sock <<<"$spec"
  python3 -c "
import statistics,sys
q=[int(x) for x in sys.argv[2].split()]; v=[int(x) for x in sys.argv[3].split()]
print(f'{sys.argv[1]}: queue median {statistics.median(q):.0f} ms {q}; --version median {statistics.median(v):.0f} ms; ratio {statistics.median(q)/statistics.median(v):.2f}')" "$label" "${Q[$label]}" "${V[$label]}"
done
uptime
