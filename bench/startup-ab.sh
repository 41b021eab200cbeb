#!/usr/bin/env bash
# Start-up A/B (issue #25): medians of N runs of `bin/gpusched --version` and `bin/gpusched queue` for two
# checkouts, interleaved (A, B, A, B, ...) so background load hits both alike. The queue runs ask one
# `gpusched serve --sim 2` (started from checkout A) on a socket of its own. Each checkout's jar and CDS
# archives are built and trained by a first, untimed run. Prints wall and CPU (user + sys) medians.
#   bench/startup-ab.sh /tmp/base .   [N=10]
set -euo pipefail
a="$(cd "$1" && pwd)"; b="$(cd "$2" && pwd)"; n="${N:-10}"
tmp="$(mktemp -d)"; trap 'kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
"$a/bin/gpusched" serve --sim 2 --socket "$tmp/s.sock" --log-dir "$tmp/logs" >"$tmp/serve.log" 2>&1 &
daemon=$!
for i in $(seq 200); do [ -S "$tmp/s.sock" ] && break; sleep 0.05; done
export GPUSCHED_SOCKET="$tmp/s.sock"
# One run: "wall_ms cpu_ms" (cpu: user + sys of the launcher and its JVM, from GNU time).
ms() { /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 || true
       awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$tmp/t"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for root in "$a" "$b"; do "$root/bin/gpusched" --version >/dev/null; "$root/bin/gpusched" queue >/dev/null; done
for what in --version queue; do
  : >"$tmp/a" ; : >"$tmp/b"
  for i in $(seq "$n"); do
    ms "$a/bin/gpusched" $what >>"$tmp/a"
    ms "$b/bin/gpusched" $what >>"$tmp/b"
  done
  printf '%-10s wall median A %s ms, B %s ms; cpu median A %s ms, B %s ms\n' "$what" \
    "$(cut -d' ' -f1 "$tmp/a" | median)" "$(cut -d' ' -f1 "$tmp/b" | median)" \
    "$(cut -d' ' -f2 "$tmp/a" | median)" "$(cut -d' ' -f2 "$tmp/b" | median)"
  printf '           wall A: %s\n           wall B: %s\n' "$(cut -d' ' -f1 "$tmp/a" | tr '\n' ' ')" \
    "$(cut -d' ' -f1 "$tmp/b" | tr '\n' ' ')"
done
