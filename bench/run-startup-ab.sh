#!/usr/bin/env bash
# Start-up A/B of a jobs-file run (issue #25): medians of N runs of
# `bin/gpusched JOBS --sim 1 --poll 0.05 --fresh` (one job, `true`) for two or more checkouts,
# interleaved (A, B, A, B, ...) so background load hits each alike. Each checkout's jar and its run
# archive (CDS/AOT) are built and trained by a first, untimed run. Prints wall and CPU (user + sys of
# the launcher, its JVM and the job) medians per checkout.
#   N=15 bench/run-startup-ab.sh /tmp/base .        (a base made with: git archive REV | tar -x -C /tmp/base)
set -euo pipefail
n="${N:-10}"; roots=()
for r in "$@"; do roots+=("$(cd "$r" && pwd)"); done
[ "${#roots[@]}" -ge 2 ] || { echo "usage: N=10 $0 CHECKOUT_A CHECKOUT_B [CHECKOUT_C ...]" >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
printf '[vram=1G] true\n' >"$tmp/jobs.txt"
# One run: "wall_ms cpu_ms" (cpu: user + sys, from GNU time).
ms() { /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 || true
       awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$tmp/t"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
args() { echo "$tmp/jobs.txt --sim 1 --poll 0.05 --fresh --log-dir $tmp/logs-$1"; }
for i in "${!roots[@]}"; do "${roots[$i]}/bin/gpusched" $(args "$i") >/dev/null 2>&1; : >"$tmp/r$i"; done
for k in $(seq "$n"); do
  for i in "${!roots[@]}"; do ms "${roots[$i]}/bin/gpusched" $(args "$i") >>"$tmp/r$i"; done
done
for i in "${!roots[@]}"; do
  printf 'run %s: wall median %s ms, cpu median %s ms; cpu: %s\n' "${roots[$i]}" \
    "$(cut -d' ' -f1 "$tmp/r$i" | median)" "$(cut -d' ' -f2 "$tmp/r$i" | median)" \
    "$(cut -d' ' -f2 "$tmp/r$i" | tr '\n' ' ')"
done
