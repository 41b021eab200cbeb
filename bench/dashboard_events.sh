#!/usr/bin/env bash
# What one open dashboard tab costs: bytes/s on /events and the daemon's CPU (% of one core), with 7
# running jobs on `serve --sim 2` that hold memory (the simulated job), over SECS seconds; RUNS runs,
# then the median of each. Not part of `mvn verify`.
#
#   bench/dashboard_events.sh [RUNS]            # default 3 runs of 60 s, after a 20 s warm-up
#   GPUSCHED_JAR=/tmp/base.jar bench/dashboard_events.sh   # another build (e.g. the branch's base)
#   TAB=0 bench/dashboard_events.sh             # no tab open: the daemon's own CPU, for comparison
#
# The tab is curl holding /events open with the user's token (what `gpusched dashboard` prints); its
# bytes are counted by wc -c. CPU is utime+stime of the daemon's process (/proc/PID/stat, every thread)
# between the stream's start and its end. The warm-up lets the jobs' timelines fill (at --sample
# 0.25 s, 80 points each) so the old full-timeline updates are not measured while they are still short.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${GPUSCHED_JAR:-$root/gpusched-cli/target/gpusched.jar}"
runs="${1:-3}"
secs="${SECS:-60}"
warm="${WARMUP:-20}"
[ -f "$jar" ] || { echo "no $jar: build it (bin/gpusched version) or set GPUSCHED_JAR" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl (apt-get install curl)" >&2; exit 2; }
# The launcher's JVM flags (bin/gpusched), without its class-data archive.
. "$root/bench/jvm_flags.sh"
java=(java "${jvm_flags[@]}" -jar "$jar")
hz="$(getconf CLK_TCK)"

cpu_ticks() { # utime + stime of process $1, in clock ticks (fields 14 and 15, after the ")" of its name)
  local rest
  rest="$(sed 's/.*) //' "/proc/$1/stat")"
  set -- $rest
  echo $(( ${12} + ${13} ))
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

daemon=""
tmp=""
stop_daemon() { # SIGTERM stops the daemon and its jobs; then its directory goes
  if [ -n "$daemon" ]; then
    kill -TERM "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
    daemon=""
  fi
  [ -n "$tmp" ] && rm -rf "$tmp"
  tmp=""
}
trap stop_daemon EXIT

# One run: prints "BYTES_PER_S CPU_PERCENT" into $result.
one_run() {
  local link url t0 t1 bytes i
  tmp="$(mktemp -d /tmp/gpusched-dashboard-bench.XXXXXX)"
  "${java[@]}" serve --sim 2 --dashboard 127.0.0.1:0 --socket "$tmp/s.sock" --log-dir "$tmp/logs" >"$tmp/daemon.log" 2>&1 &
  daemon=$!
  for i in $(seq 600); do
    grep -q '^dashboard on ' "$tmp/daemon.log" && [ -S "$tmp/s.sock" ] && break
    kill -0 "$daemon" 2>/dev/null || { cat "$tmp/daemon.log" >&2; return 1; }
    sleep 0.1
  done
  for i in $(seq 7); do
    "${java[@]}" submit --socket "$tmp/s.sock" --vram 3G -- "\$GPUSCHED_SIMJOB --vram $((1500 + 100 * i)) --ramp 10 --hold 900" >/dev/null
  done
  for i in $(seq 300); do
    [ "$("${java[@]}" queue --socket "$tmp/s.sock" | head -1 | cut -d' ' -f1)" = 7 ] && break
    sleep 0.2
  done
  [ "$("${java[@]}" queue --socket "$tmp/s.sock" | head -1 | cut -d' ' -f1)" = 7 ] || { echo "7 jobs never ran" >&2; return 1; }
  sleep "$warm"
  link="$("${java[@]}" dashboard --socket "$tmp/s.sock")"
  url="${link%%\?*}events?${link#*\?}"
  t0="$(cpu_ticks "$daemon")"
  if [ "${TAB:-1}" = 0 ]; then
    sleep "$secs"; bytes=0
  else
    bytes="$(timeout "$secs" curl -sN "$url" | wc -c || true)"
  fi
  t1="$(cpu_ticks "$daemon")"
  result="$(awk -v b="$bytes" -v s="$secs" -v d="$((t1 - t0))" -v hz="$hz" \
    'BEGIN { printf "%.0f %.2f\n", b / s, 100 * d / hz / s }')"
  stop_daemon
}

echo "jar: $jar; $runs runs of $secs s after $warm s with 7 running jobs"
results=()
for r in $(seq "$runs"); do
  one_run
  line="$result"
  results+=("$line")
  echo "run $r: $(cut -d' ' -f1 <<<"$line") bytes/s on /events, daemon CPU $(cut -d' ' -f2 <<<"$line") % of a core"
done
bps="$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)"
cpu="$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | median)"
echo "median: $bps bytes/s on /events, daemon CPU $cpu % of a core"
