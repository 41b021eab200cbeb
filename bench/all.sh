#!/usr/bin/env bash
# Every benchmark whose figures BENCHMARKS.md's "Current figures" states, in one bounded run (issue #27
# item 5, issue #24's closing A/B). It reuses the harnesses (their headers say what each measures) and
# writes one results file: a header (date, commit, machine, load before/after, java -version) and one
# TSV row per figure (median, min, max, runs, unit, the command that measured it).
#
# usage: bench/all.sh [--base DIR] [--out FILE] [--small] [--only S,S] [--skip S,S]
#   (run from a built checkout: mvn -B -o -DskipTests -Dmaven.javadoc.skip package -pl gpusched-cli -am)
#   --base DIR   another built checkout (e.g. git worktree add /tmp/bench-a1475ce a1475ce, built the same
#                way) measured in the A/B section, interleaved round by round with this one, and in a
#                lab-scale run of its own; a row its build cannot produce (a harness it lacks, a verb
#                that fails there) is written as "n/c" with the reason, never a failure of the run.
#   --out FILE   results file (default bench/results/all-<time>.tsv; raw logs beside it in FILE.raw/)
#   --small      a smoke test: every section on tiny sizes, 1-2 runs (figures meaningless)
#   sections (--only/--skip): ab jmh tsp lab idle start replay sim dash qscale flood
#     ab      #24's A/B: 200 trivial jobs (wall, CPU, max RSS), RoundTimer over 10,000 lines, SubmitBench,
#             and with --base bench/spawn/ab.py (serial gap) — both checkouts interleaved
#     jmh     the JMH benchmarks a1475ce already had (AllocatorBench, ParserBench), each checkout's own
#             copy, interleaved; builds bench/jmh (mvn -Pbench, which fetches JMH once) where it is missing
#     tsp     bench/vs_tsp.py: the rows beside task-spooler (this checkout)
#     lab     bench/lab_scale.sh at 10,000 and 100,000 queued (with --base: the base at BASE_LAB_SIZES, and
#             bench/lab_alt.sh: both daemons' lone client alternated trip by trip, ALT_QUEUED queued)
#     idle    bench/round/IdleRound.java: an idle round with 100,000 pending
#     start   bench/startup-ab.sh and bench/run-startup-ab.sh (base vs this, or this alone)
#     replay  bench/replay/ab.sh: the former replay loop against the engine (needs test classes: built
#             here first with mvn test-compile when missing)
#     sim     gpusched simulate: the requirement-rules, learned-declaration and starvation makespans, and the
#             replay's own wall and CPU over SIM_LINES generated lines (bench/replay/sweep_lines.py), interleaved
#     dash    bench/dashboard_events.sh: one open dashboard tab
#     qscale  bench/service/queue_scale.sh (root only): `gpusched queue` as another user, 100,000 queued
#     flood   bench/service/flood.sh (root only; creates and removes user gs-cn-flood): connection floods
# env (defaults in brackets; the defaults take about 25 minutes on a quiet 2-core machine with --base):
#   RUNS [5] rounds of vs_tsp, the A/B loop and spawn/ab.py; LAB_RUNS [3]; LAB_SIZES ["10000 100000"];
#   TRIPS [300]; LAB_IDLE [5]; BASE_LAB_SIZES [10000]; BASE_LAB_RUNS [1]; ALT_QUEUED [10000];
#   ALT_RUNS [5]; SB [3] SubmitBench runs per checkout; SB_QUEUED [10000]; SB_TRIPS [500]; ROUND_LINES [10000]; ROUND_N [60]; IDLE_QUEUED [100000];
#   IDLE_RUNS [5]; JMH_RUNS [3] JMH runs per checkout (each: 1 fork, 3 x 1 s warm-up, 5 x 1 s measured);
#   N [10] start-up runs; REPLAY_ROUNDS [200]; REPLAY_WARMUP [180] of them not counted (the engine's code is JIT-compiled over
#   the first hundred or so rounds; rounds 20-29, counted before, read 2-3x its steady state);
#   DASH_RUNS [1]; DASH_SECS [60];
#   QSCALE_QUEUED [100000]; QSCALE_RUNS [3]; SIM_LINES [1000]; SIM_RUNS [3].
# Then: python3 bench/current.py RESULTS.tsv --write BENCHMARKS.md   (fills the "Current figures" tables)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
base=""; out=""; small=0; only=""; skip=""
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="$(cd "${2:?--base needs a directory}" && pwd)" || exit 2; shift 2 ;;
    --out) out="${2:?--out needs a file}"; shift 2 ;;
    --small) small=1; shift ;;
    --only) only=",${2:?--only needs sections},"; shift 2 ;;
    --skip) skip=",${2:?--skip needs sections},"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/all.sh: unknown argument '$1' (see bench/all.sh --help)" >&2; exit 2 ;;
  esac
done
for c in "$root" ${base:+"$base"}; do
  [ -f "$c/gpusched-cli/target/gpusched.jar" ] || {
    echo "bench/all.sh: $c is not built: run mvn -B -o -DskipTests -Dmaven.javadoc.skip package -pl gpusched-cli -am there" >&2
    exit 2; }
done
if [ "$small" = 1 ]; then
  : "${RUNS:=1}" "${LAB_RUNS:=1}" "${LAB_SIZES:=1000}" "${TRIPS:=50}" "${LAB_IDLE:=1}" "${BASE_LAB_SIZES:=1000}"
  : "${ALT_QUEUED:=1000}" "${ALT_RUNS:=1}"
  : "${SB:=1}" "${SB_QUEUED:=1000}" "${SB_TRIPS:=100}" "${ROUND_LINES:=1000}" "${ROUND_N:=20}" "${IDLE_QUEUED:=2000}"
  : "${IDLE_RUNS:=2}" "${JMH_RUNS:=1}" "${N:=2}" "${REPLAY_ROUNDS:=2}" "${REPLAY_WARMUP:=1}" "${DASH_SECS:=5}" "${QSCALE_QUEUED:=2000}" "${QSCALE_RUNS:=1}" "${SIM_LINES:=50}" "${SIM_RUNS:=1}"
  export WARMUP="${WARMUP:-3}"
fi
RUNS="${RUNS:-5}"; LAB_RUNS="${LAB_RUNS:-3}"; LAB_SIZES="${LAB_SIZES:-10000 100000}"; TRIPS="${TRIPS:-300}"
LAB_IDLE="${LAB_IDLE:-5}"; BASE_LAB_SIZES="${BASE_LAB_SIZES:-10000}"; BASE_LAB_RUNS="${BASE_LAB_RUNS:-1}"
ALT_QUEUED="${ALT_QUEUED:-10000}"; ALT_RUNS="${ALT_RUNS:-5}"
SB="${SB:-3}"; SB_QUEUED="${SB_QUEUED:-10000}"; SB_TRIPS="${SB_TRIPS:-500}"; ROUND_LINES="${ROUND_LINES:-10000}"
ROUND_N="${ROUND_N:-60}"; IDLE_QUEUED="${IDLE_QUEUED:-100000}"; IDLE_RUNS="${IDLE_RUNS:-5}"; JMH_RUNS="${JMH_RUNS:-3}"; N="${N:-10}"
REPLAY_ROUNDS="${REPLAY_ROUNDS:-200}"; REPLAY_WARMUP="${REPLAY_WARMUP:-180}"; DASH_RUNS="${DASH_RUNS:-1}"; DASH_SECS="${DASH_SECS:-60}"
QSCALE_QUEUED="${QSCALE_QUEUED:-100000}"; QSCALE_RUNS="${QSCALE_RUNS:-3}"; SIM_LINES="${SIM_LINES:-1000}"; SIM_RUNS="${SIM_RUNS:-3}"

mkdir -p "$root/bench/results"
out="${out:-$root/bench/results/all-$(date -u +%Y%m%d-%H%M%S).tsv}"
raw="$out.raw"; mkdir -p "$raw"
rows=(python3 "$here/all_rows.py")
. "$here/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
flags=("${jvm_flags[@]}")
want() { [[ -z "$only" || "$only" == *",$1,"* ]] && [[ "$skip" != *",$1,"* ]]; }
say() { echo "$(date -u +%H:%M:%S) $*" >&2; }
commit() { git -C "$1" rev-parse HEAD 2>/dev/null || echo "not-a-git-checkout"; }
dirty() { [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo " (uncommitted changes)" || true; }
# A row: ID CHECKOUT VALUES UNIT COMMAND [NOTE]; VALUES is space-separated numbers, or "n/c: reason".
row() { "${rows[@]}" row "$out" "$@"; }
t_start=$(date +%s)
{
  echo "# bench/all.sh results"
  echo "# date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# final	$root	$(commit "$root")$(dirty "$root")"
  [ -n "$base" ] && echo "# base	$base	$(commit "$base")$(dirty "$base")"
  echo "# machine	nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -sr); $(free -g | awk '/Mem:/ {print $2 " GiB RAM"}')"
  echo "# java	$(java -version 2>&1 | tr '\n' ' ')"
  echo "# loadavg_before	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# settings	RUNS=$RUNS LAB_RUNS=$LAB_RUNS LAB_SIZES='$LAB_SIZES' TRIPS=$TRIPS LAB_IDLE=$LAB_IDLE BASE_LAB_SIZES='$BASE_LAB_SIZES' BASE_LAB_RUNS=$BASE_LAB_RUNS ALT_QUEUED=$ALT_QUEUED ALT_RUNS=$ALT_RUNS SB=$SB SB_QUEUED=$SB_QUEUED SB_TRIPS=$SB_TRIPS ROUND_LINES=$ROUND_LINES ROUND_N=$ROUND_N IDLE_QUEUED=$IDLE_QUEUED IDLE_RUNS=$IDLE_RUNS JMH_RUNS=$JMH_RUNS N=$N REPLAY_ROUNDS=$REPLAY_ROUNDS REPLAY_WARMUP=$REPLAY_WARMUP DASH_RUNS=$DASH_RUNS DASH_SECS=$DASH_SECS QSCALE_QUEUED=$QSCALE_QUEUED QSCALE_RUNS=$QSCALE_RUNS SIM_LINES=$SIM_LINES SIM_RUNS=$SIM_RUNS small=$small"
  printf 'id\tcheckout\tmedian\tmin\tmax\tn\tunit\tcommand\tnote\n'
} >"$out"
say "results: $out (raw logs in $raw/)"

# Builds the launchers' class-data archives and warms the page cache: untimed.
for c in "$root" ${base:+"$base"}; do "$c/bin/gpusched" --version >/dev/null 2>&1 || say "warning: $c/bin/gpusched --version failed"; done

# Each checkout's own copy of an in-process harness (its API moves with the code); where the base has none,
# the final's copy is tried against the base's jar and the row is "n/c" if it does not compile or run.
harness() { # CHECKOUT RELPATH -> path of the copy to use
  if [ -f "$1/$2" ]; then echo "$1/$2"; else echo "$root/$2"; fi
}
tag() { [ "$1" = "$root" ] && echo final || echo base; }
cps() { # the classpath of a checkout's jar, plus testkit classes where the jar lacks them
  local c="$1/gpusched-cli/target/gpusched.jar"
  [ -d "$1/gpusched-testkit/target/classes" ] && c+=":$1/gpusched-testkit/target/classes"
  echo "$c"
}

# ---------------------------------------------------------------- ab: #24's A/B, interleaved
if want ab; then
  say "ab: 200 trivial jobs and RoundTimer, $RUNS rounds interleaved; SubmitBench x$SB"
  checkouts=("$root"); [ -n "$base" ] && checkouts=("$base" "$root")
  t200="$raw/t200.txt"; for _ in $(seq 200); do echo '[vram=1G] true'; done >"$t200"
  : >"$raw/ab.log"
  for i in $(seq "$RUNS"); do
    order=("${checkouts[@]}"); [ $((i % 2)) = 0 ] && [ ${#checkouts[@]} = 2 ] && order=("${checkouts[1]}" "${checkouts[0]}")
    for c in "${order[@]}"; do
      rm -rf "$raw/ab-logs"
      /usr/bin/time -f "$(tag "$c") trivial %e %U %S %M" "$c/bin/gpusched" "$t200" --sim 2 --fresh --log-dir "$raw/ab-logs" \
        >/dev/null 2>>"$raw/ab.log"
      rt="$(harness "$c" bench/jmh/src/main/java/io/gpusched/bench/RoundTimer.java)"
      echo "$(tag "$c") rounds $(cd "$c" && java "${flags[@]}" -cp "$(cps "$c")" "$rt" "$ROUND_LINES" "$ROUND_N" 2>&1 \
        | grep -E '^(first_round_ms|steady_round_ms|steady_round_loop_cpu_ms) ' | awk '{print $1 "=" $2}' | tr '\n' ' ')" >>"$raw/ab.log"
    done
  done
  for i in $(seq "$SB"); do
    for c in "${checkouts[@]}"; do
      sb="$(harness "$c" bench/service/SubmitBench.java)"
      (cd "$c" && java -cp "$(cps "$c")" "$sb" "$SB_QUEUED" "$SB_TRIPS" 2>&1 | sed "s/^/$(tag "$c") sb /") >>"$raw/ab.log"
    done
  done
  for c in "${checkouts[@]}"; do
    "${rows[@]}" ab "$out" "$raw/ab.log" "$(tag "$c")" "$ROUND_LINES" "$ROUND_N" "$SB_QUEUED" "$SB_TRIPS"
  done
  if [ -n "$base" ]; then
    say "ab: bench/spawn/ab.py, $RUNS rounds"
    python3 "$root/bench/spawn/ab.py" "$base" "$root" --runs "$RUNS" >"$raw/spawn-ab.log" 2>&1
    "${rows[@]}" spawnab "$out" "$raw/spawn-ab.log" "python3 bench/spawn/ab.py BASE . --runs $RUNS"
  fi
fi

# ---------------------------------------------------------------- jmh: the JMH benchmarks the base had
if want jmh; then
  say "jmh: AllocatorBench and ParserBench, $JMH_RUNS rounds interleaved"
  checkouts=("$root"); [ -n "$base" ] && checkouts=("$base" "$root")
  : >"$raw/jmh.log"
  for c in "${checkouts[@]}"; do
    if [ ! -f "$c/bench/jmh/target/benchmarks.jar" ]; then
      say "jmh: building $c/bench/jmh (untimed)"
      (cd "$c" && mvn -B -q -Pbench -DskipTests -Dmaven.javadoc.skip package -pl bench/jmh -am) >"$raw/jmh-build-$(tag "$c").log" 2>&1 \
        || echo "$(tag "$c") build failed: $(tail -n 2 "$raw/jmh-build-$(tag "$c").log" | tr '\n\t' '  ')" >>"$raw/jmh.log"
    fi
  done
  for i in $(seq "$JMH_RUNS"); do
    order=("${checkouts[@]}"); [ $((i % 2)) = 0 ] && [ ${#checkouts[@]} = 2 ] && order=("${checkouts[1]}" "${checkouts[0]}")
    for c in "${order[@]}"; do
      [ -f "$c/bench/jmh/target/benchmarks.jar" ] || continue
      java -jar "$c/bench/jmh/target/benchmarks.jar" 'io.gpusched.bench.(AllocatorBench|ParserBench)' -f 1 -wi 3 -w 1 -i 5 -r 1 2>&1 \
        | grep -E '^(AllocatorBench|ParserBench)\.' | sed "s/^/$(tag "$c") /" >>"$raw/jmh.log"
    done
  done
  for c in "${checkouts[@]}"; do
    "${rows[@]}" jmh "$out" "$raw/jmh.log" "$(tag "$c")" \
      "java -jar bench/jmh/target/benchmarks.jar 'io.gpusched.bench.(AllocatorBench|ParserBench)' -f 1 -wi 3 -w 1 -i 5 -r 1"
  done
fi

# ---------------------------------------------------------------- tsp: beside task-spooler
if want tsp; then
  say "tsp: bench/vs_tsp.py --runs $RUNS"
  python3 "$root/bench/vs_tsp.py" --runs "$RUNS" --queued "$SB_QUEUED" >"$raw/vs_tsp.log" 2>&1
  "${rows[@]}" tsp "$out" "$raw/vs_tsp.log" "$root" "bench/vs_tsp.py --runs $RUNS --queued $SB_QUEUED"
fi

# ---------------------------------------------------------------- lab: lab_scale.sh
lab() { # CHECKOUT RUNS SIZES...
  local c="$1" n="$2"; shift 2
  local log="$raw/lab-$(tag "$c").log"
  JAR="$c/gpusched-cli/target/gpusched.jar" RUNS="$n" TRIPS="$TRIPS" IDLE="$LAB_IDLE" \
    bash "$root/bench/lab_scale.sh" "$@" >"$log" 2>&1
  echo "exit $?" >>"$log"
  "${rows[@]}" lab "$out" "$log" "$(tag "$c")" \
    "JAR=$( [ "$c" = "$root" ] && echo . || echo BASE)/gpusched-cli/target/gpusched.jar RUNS=$n TRIPS=$TRIPS IDLE=$LAB_IDLE bench/lab_scale.sh $*" "$@"
}
if want lab; then
  say "lab: bench/lab_scale.sh $LAB_SIZES, $LAB_RUNS runs"
  lab "$root" "$LAB_RUNS" $LAB_SIZES
  if [ -n "$base" ] && [ -n "$BASE_LAB_SIZES" ]; then
    say "lab: the base at $BASE_LAB_SIZES, $BASE_LAB_RUNS run(s)"
    lab "$base" "$BASE_LAB_RUNS" $BASE_LAB_SIZES
  fi
  if [ -n "$base" ]; then
    say "lab: bench/lab_alt.sh, both daemons alternated, $ALT_QUEUED queued, $ALT_RUNS runs"
    QUEUED="$ALT_QUEUED" TRIPS="$TRIPS" RUNS="$ALT_RUNS" bash "$root/bench/lab_alt.sh" \
      "$base/gpusched-cli/target/gpusched.jar" "$root/gpusched-cli/target/gpusched.jar" >"$raw/lab-alt.log" 2>&1
    echo "exit $?" >>"$raw/lab-alt.log"
    "${rows[@]}" labalt "$out" "$raw/lab-alt.log" \
      "QUEUED=$ALT_QUEUED TRIPS=$TRIPS RUNS=$ALT_RUNS bench/lab_alt.sh BASE/gpusched-cli/target/gpusched.jar gpusched-cli/target/gpusched.jar"
  fi
fi

# ---------------------------------------------------------------- idle: IdleRound
if want idle; then
  for c in "$root" ${base:+"$base"}; do
    say "idle: IdleRound $IDLE_QUEUED 40 $IDLE_RUNS ($(tag "$c"))"
    ir="$(harness "$c" bench/round/IdleRound.java)"
    (cd "$c" && java "${flags[@]}" -cp "$(cps "$c")" "$ir" "$IDLE_QUEUED" 40 "$IDLE_RUNS") >"$raw/idle-$(tag "$c").log" 2>&1
    "${rows[@]}" idle "$out" "$raw/idle-$(tag "$c").log" "$(tag "$c")" \
      "java ${flags[*]} -cp gpusched-cli/target/gpusched.jar bench/round/IdleRound.java $IDLE_QUEUED 40 $IDLE_RUNS" \
      "$([ "$ir" = "$c/bench/round/IdleRound.java" ] || echo "the base has no IdleRound.java: the final's copy against the base's jar")"
  done
fi

# ---------------------------------------------------------------- start: start-up A/B
if want start; then
  a="${base:-$root}"
  say "start: bench/startup-ab.sh and bench/run-startup-ab.sh, N=$N"
  N="$N" bash "$root/bench/startup-ab.sh" "$a" "$root" >"$raw/startup-ab.log" 2>&1
  if [ -n "$base" ]; then N="$N" bash "$root/bench/run-startup-ab.sh" "$base" "$root" >"$raw/run-startup-ab.log" 2>&1
  else N="$N" bash "$root/bench/run-startup-ab.sh" "$root" >"$raw/run-startup-ab.log" 2>&1; fi
  "${rows[@]}" start "$out" "$raw/startup-ab.log" "$raw/run-startup-ab.log" "$root" "$base" "$N"
fi

# ---------------------------------------------------------------- replay: former loop vs engine
if want replay; then
  if [ ! -d "$root/gpusched-testkit/target/test-classes" ] || [ ! -d "$root/gpusched-core/target/test-classes" ]; then
    say "replay: building test classes (mvn test-compile of core and testkit; untimed)"
    (cd "$root" && mvn -B -q -o -pl gpusched-core,gpusched-testkit test-compile -Dmaven.javadoc.skip) >"$raw/replay-build.log" 2>&1
  fi
  say "replay: bench/replay/ab.sh $REPLAY_ROUNDS"
  bash "$root/bench/replay/ab.sh" "$REPLAY_ROUNDS" >"$raw/replay.log" 2>&1
  "${rows[@]}" replay "$out" "$raw/replay.log" "bench/replay/ab.sh $REPLAY_ROUNDS" "$REPLAY_WARMUP"
fi

# ---------------------------------------------------------------- sim: deterministic replays
if want sim; then
  say "sim: gpusched simulate (requirement rules, learned declarations, starvation)"
  g="$root/bin/gpusched"; s="$raw/sweep.jsonl"; rm -f "$s"
  sim() { local id="$1"; shift; local log="$raw/sim-$id.log"
    (cd "$root" && "$g" simulate "$@") >"$log" 2>&1
    "${rows[@]}" sim "$out" "$log" "$id" "bin/gpusched simulate $*"; }
  sim sweep.none bench/requirements/sweep.txt --gpus-spec 2x80G
  sim sweep.rules bench/requirements/sweep.txt --gpus-spec 2x80G --requirements examples/requirements.json
  sim sweep.learn1 bench/requirements/sweep.txt --gpus-spec 2x80G --auto-vram --save-journal "$s"
  sim sweep.learn2 bench/requirements/sweep.txt --gpus-spec 2x80G --auto-vram --learn-from "$s"
  sim sweep.ruleslearn bench/requirements/sweep.txt --gpus-spec 2x80G --requirements examples/requirements.json --auto-vram --learn-from "$s"
  sim starv.never bench/starvation/stream.txt --gpus-spec 4x24000 --reserve-after never --jobs
  sim starv.default bench/starvation/stream.txt --gpus-spec 4x24000 --jobs
  # The replay's own cost, beside the base's: SIM_LINES generated lines over 4 GPUs, each checkout's
  # bin/gpusched, interleaved; the two replays' outputs must be the same (else the row says so).
  say "sim: gpusched simulate of $SIM_LINES lines, $SIM_RUNS rounds interleaved"
  sl="$raw/sim-lines.txt"; python3 "$root/bench/replay/sweep_lines.py" "$SIM_LINES" >"$sl"
  checkouts=("$root"); [ -n "$base" ] && checkouts=("$base" "$root")
  : >"$raw/sim-time.log"
  for i in $(seq "$SIM_RUNS"); do
    order=("${checkouts[@]}"); [ $((i % 2)) = 0 ] && [ ${#checkouts[@]} = 2 ] && order=("${checkouts[1]}" "${checkouts[0]}")
    for c in "${order[@]}"; do
      /usr/bin/time -f "$(tag "$c") %e %U %S" "$c/bin/gpusched" simulate "$sl" --gpus-spec 4x24000 >"$raw/sim-out-$(tag "$c").txt" \
        2>>"$raw/sim-time.log"
    done
  done
  same=""; [ ${#checkouts[@]} = 2 ] && { cmp -s <(sort "$raw/sim-out-base.txt") <(sort "$raw/sim-out-final.txt") && same="the same lines as the base's (GPUs' lines in any order)" \
    || same="OUTPUT DIFFERS from the base's (see sim-out-*.txt)"; }
  for c in "${checkouts[@]}"; do
    t="$(tag "$c")"
    row "sim.lines.wall" "$t" "$(awk -v t="$t" '$1 == t {printf "%s ", $2}' "$raw/sim-time.log")" s \
      "bench/replay/sweep_lines.py $SIM_LINES > F; bin/gpusched simulate F --gpus-spec 4x24000" "$same"
    row "sim.lines.cpu" "$t" "$(awk -v t="$t" '$1 == t {printf "%s ", $3 + $4}' "$raw/sim-time.log")" s \
      "bench/replay/sweep_lines.py $SIM_LINES > F; bin/gpusched simulate F --gpus-spec 4x24000" "user+sys"
  done
fi

# ---------------------------------------------------------------- dash: one dashboard tab
if want dash; then
  if command -v curl >/dev/null; then
    say "dash: bench/dashboard_events.sh $DASH_RUNS (SECS=$DASH_SECS)"
    SECS="$DASH_SECS" bash "$root/bench/dashboard_events.sh" "$DASH_RUNS" >"$raw/dash.log" 2>&1
    "${rows[@]}" dash "$out" "$raw/dash.log" "SECS=$DASH_SECS bench/dashboard_events.sh $DASH_RUNS"
  else row dash.bps final "n/c: curl is missing (apt-get install curl)" "B/s" "bench/dashboard_events.sh"; fi
fi

# ---------------------------------------------------------------- qscale and flood: root only
if want qscale; then
  if [ "$(id -u)" = 0 ]; then
    say "qscale: bench/service/queue_scale.sh JAR $QSCALE_QUEUED $QSCALE_RUNS"
    bash "$root/bench/service/queue_scale.sh" "$root/gpusched-cli/target/gpusched.jar" "$QSCALE_QUEUED" "$QSCALE_RUNS" >"$raw/qscale.log" 2>&1
    "${rows[@]}" qscale "$out" "$raw/qscale.log" "bench/service/queue_scale.sh gpusched-cli/target/gpusched.jar $QSCALE_QUEUED $QSCALE_RUNS"
  else row qscale.wall final "n/c: needs root (it reads the queue as user nobody)" ms "bench/service/queue_scale.sh"; fi
fi
if want flood; then
  if [ "$(id -u)" = 0 ]; then
    say "flood: bench/service/flood.sh (needs the checkout's classes: mvn compile was part of package)"
    bash "$root/bench/service/flood.sh" "$root" >"$raw/flood.log" 2>&1
    "${rows[@]}" flood "$out" "$raw/flood.log" "bench/service/flood.sh"
  else row flood.idle3000 final "n/c: needs root (it floods as another user)" MiB "bench/service/flood.sh"; fi
fi

t_end=$(date +%s)
{
  echo "# loadavg_after	$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# duration_s	$((t_end - t_start))"
} >>"$out"
say "done in $((t_end - t_start)) s: $out"
say "fill BENCHMARKS.md: python3 bench/current.py $out --write BENCHMARKS.md"
