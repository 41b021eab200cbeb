#!/usr/bin/env bash
# SubmitBench's lone client, both checkouts interleaved, with its optional settle and per-block medians
# (bench/service/SubmitBench.java's header): what the A/B row `ab.sb.median` measures in a JVM a few
# seconds old, against the same trips after a settle, and under bin/gpusched's JVM flags.
# Usage: bench/service/sb_ab.sh BASE_CHECKOUT [RUNS]   env: TRIPS (500), SETTLE_MS (5000), BLOCK (500)
# Each checkout runs this checkout's SubmitBench.java (a copy for a checkout whose SchedulerOptions is
# still in package io.gpusched, as at a1475ce). Prints one line per run and mode.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base="$(cd "$1" && pwd)"; runs="${2:-3}"
trips="${TRIPS:-500}"; settle="${SETTLE_MS:-5000}"; block="${BLOCK:-500}"
. "$root/bench/jvm_flags.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
copy() { # CHECKOUT -> a SubmitBench.java that compiles against it
  local d="$tmp/$(basename "$1")-$RANDOM"; mkdir -p "$d"
  if [ -f "$1/gpusched-core/src/main/java/io/gpusched/options/SchedulerOptions.java" ]; then
    cp "$root/bench/service/SubmitBench.java" "$d/"
  else
    sed 's/import io.gpusched.options.SchedulerOptions;/import io.gpusched.SchedulerOptions;/' \
      "$root/bench/service/SubmitBench.java" >"$d/SubmitBench.java"
  fi
  echo "$d/SubmitBench.java"
}
declare -A src=([base]="$(copy "$base")" [final]="$(copy "$root")")
declare -A dir=([base]="$base" [final]="$root")
for i in $(seq "$runs"); do
  for c in base final; do
    for mode in plain settle c1; do
      case $mode in
        plain) jv=(java -Dsb.block="$block") ;;
        settle) jv=(java -Dsb.block="$block" -Dsb.settle="$settle") ;;
        c1) jv=(java "${jvm_flags[@]}" -Dsb.block="$block") ;;
      esac
      out="$(cd "${dir[$c]}" && "${jv[@]}" -cp gpusched-cli/target/gpusched.jar "${src[$c]}" 10000 "$trips" 2>&1 \
        | grep -E '^(round trips|queued)' | sed 's/queued 10000; //' | tr '\n' ' ')"
      echo "run $i $c $mode: $out"
    done
  done
done
