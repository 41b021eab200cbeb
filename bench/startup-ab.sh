#!/usr/bin/env bash
# Start-up A/B (issue #25): medians of N runs of `bin/gpusched --version` and `bin/gpusched queue` for two
# checkouts, interleaved (A, B, A, B, ...) so background load hits both alike. Each checkout's `queue`
# asks its own `gpusched serve --sim 2`, on a socket of its own: a client asks its daemon for what that
# daemon can answer (since #27 the text of the queue, not its rows), so one daemon for both would time
# a newer client falling back to an older daemon's rows (what this script did until 2026-11-26: it
# read B's `queue` 20 % slower than against its own daemon). Each checkout's jar and CDS
# archives are built and trained by a first, untimed run. Prints wall and CPU (user + sys) medians.
#   bench/startup-ab.sh /tmp/base .   [N=10]
set -euo pipefail
a="$(cd "$1" && pwd)"; b="$(cd "$2" && pwd)"; n="${N:-10}"
tmp="$(mktemp -d)"; trap 'kill "$da" "$db" 2>/dev/null; wait "$da" "$db" 2>/dev/null; rm -rf "$tmp"' EXIT
"$a/bin/gpusched" serve --sim 2 --socket "$tmp/a.sock" --log-dir "$tmp/logs-a" >"$tmp/serve-a.log" 2>&1 &
da=$!
"$b/bin/gpusched" serve --sim 2 --socket "$tmp/b.sock" --log-dir "$tmp/logs-b" >"$tmp/serve-b.log" 2>&1 &
db=$!
for i in $(seq 200); do [ -S "$tmp/a.sock" ] && [ -S "$tmp/b.sock" ] && break; sleep 0.05; done
# One run: "wall_ms cpu_ms" (cpu: user + sys of the launcher and its JVM, from GNU time).
sock() { [ "$1" = "$a" ] && echo "$tmp/a.sock" || echo "$tmp/b.sock"; }
ms() { GPUSCHED_SOCKET="$(sock "$(dirname "$(dirname "$1")")")" /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1 || true
       awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$tmp/t"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for root in "$a" "$b"; do "$root/bin/gpusched" --version >/dev/null; GPUSCHED_SOCKET="$(sock "$root")" "$root/bin/gpusched" queue >/dev/null; done
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
