#!/usr/bin/env bash
# Wall time of `gpusched srun --quiet true` against an idle daemon on one simulated GPU: the whole
# round trip a user waits for (client JVM start, connect, journaled submission, grant, command, report).
# Usage: bench/service/srun.sh [RUNS]   (default 10; prints each run and the median in ms)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
runs="${1:-10}"
dir="$(mktemp -d)"
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$root/bin/gpusched" serve --sim 1 --poll 0.5 --socket "$dir/s.sock" --log-dir "$dir/logs" >"$dir/daemon.log" 2>&1 &
daemon=$!
until "$root/bin/gpusched" queue --socket "$dir/s.sock" >/dev/null 2>&1; do sleep 0.2; done
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  "$root/bin/gpusched" srun --socket "$dir/s.sock" --quiet -- true
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000000 )))
done
printf 'srun round trips (ms): %s\n' "${times[*]}"
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print "median: " a[int((NR+1)/2)] " ms"}'
