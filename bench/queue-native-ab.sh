#!/usr/bin/env bash
# `gpusched queue` wall through bin/gpusched against an idle daemon (issue #27 item 4: <= 80 ms): the
# native client (gpusched-queue) against the Java client (GPUSCHED_NO_NATIVE_CLIENT=1), interleaved
# (native, Java, native, ...) so background load hits both alike, and `gpusched --version` for the JVM's
# start. One `gpusched serve --sim 2` of this checkout with one running and one finished job; output to
# /dev/null (a pipe's list layout). Wall from bash's EPOCHREALTIME (microseconds), so a few-ms client is
# not rounded to GNU time's 10 ms. Prints medians and [min-max] in ms.
#   bench/queue-native-ab.sh [ROOT]   [N=15]
set -euo pipefail
root="$(cd "${1:-.}" && pwd)"; n="${N:-15}"
g="$root/bin/gpusched"
tmp="$(mktemp -d)"; trap 'kill "$d" 2>/dev/null; wait "$d" 2>/dev/null; rm -rf "$tmp"' EXIT
"$g" --version >/dev/null # builds the jar and trains the archives, untimed
"$g" serve --sim 2 --socket "$tmp/s.sock" --log-dir "$tmp/logs" >"$tmp/serve.log" 2>&1 &
d=$!
for i in $(seq 200); do [ -S "$tmp/s.sock" ] && break; sleep 0.05; done
export GPUSCHED_SOCKET="$tmp/s.sock"
"$g" submit -- sleep 600 >/dev/null
"$g" submit --vram 1G -- echo done >/dev/null
sleep 1
# Both print the same text, and the native client took it (exit 0 from it, not its hand-over's 100).
cmp <("$g" queue) <(GPUSCHED_NO_NATIVE_CLIENT=1 "$g" queue) || { echo "native and Java clients differ" >&2; exit 1; }
"$root/gpusched-cli/target/classes/io/gpusched/cli/gpusched-queue" queue >/dev/null
ms() { local t0=$EPOCHREALTIME; "$@" >/dev/null; local t1=$EPOCHREALTIME
       awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'; }
stats() { sort -n | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
          printf "%.1f ms [%.1f-%.1f]", m, v[1], v[NR]}'; }
: >"$tmp/native"; : >"$tmp/java"; : >"$tmp/version"
for i in $(seq "$n"); do
  ms "$g" queue >>"$tmp/native"
  GPUSCHED_NO_NATIVE_CLIENT=1 ms "$g" queue >>"$tmp/java"
  ms "$g" --version >>"$tmp/version"
done
printf 'gpusched queue, native client:   %s\n' "$(stats <"$tmp/native")"
printf 'gpusched queue, Java client:     %s\n' "$(stats <"$tmp/java")"
printf 'gpusched --version:              %s\n' "$(stats <"$tmp/version")"
printf '(%s runs each, interleaved; %s, %s)\n' "$n" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "$(date -u +%Y-%m-%dT%H:%MZ)"
