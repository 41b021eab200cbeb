#!/usr/bin/env bash
# Where the daemon's memory and CPU go with N queued (issue #27): the daemon as bench/lab_scale.sh starts
# it (bench/queue/filled_daemon.sh, bin/gpusched's JVM flags), filled with N submissions through the socket, then a class histogram
# (live objects, after a full GC), and a JFR recording (settings=profile) over TRIPS sequential round
# trips and 10 clients x 100 submissions; then one `gpusched queue`. A benchmark aid, not a test.
# Usage: bench/lab_profile.sh JAR N OUTDIR   (then e.g. `jfr print --events jdk.ExecutionSample OUTDIR/trips.jfr`)
set -euo pipefail
jar=$1; n=$2; out=$3; mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/jvm_flags.sh" # bin/gpusched's JVM flags, into jvm_flags
opts=("${jvm_flags[@]}")
d=$(mktemp -d)
# UsePerfData: jcmd finds the JVM by it.
DAEMON_JAVA_OPTS="-XX:+UsePerfData" "$root/bench/queue/filled_daemon.sh" "$jar" "$n" "$d" | tee $out/fill.txt
pid=$(cat "$d/pid")
echo "rss_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee $out/rss.txt
jcmd $pid GC.class_histogram > $out/histo.txt
echo "rss_after_gc_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee -a $out/rss.txt
jcmd $pid GC.heap_info > $out/heap.txt
jcmd $pid JFR.start name=p settings=profile filename=$out/trips.jfr >/dev/null
(cd $d && python3 "$root/bench/daemon_client.py" s.sock trips ${TRIPS:-300}) | tee $out/trips.txt
(cd $d && python3 "$root/bench/daemon_client.py" s.sock clients) | tee $out/clients.txt
jcmd $pid JFR.stop name=p >/dev/null
t0=$(date +%s%N); java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" > $d/q.out; echo "queue_ms $(( ($(date +%s%N)-t0)/1000000 ))" | tee $out/queue.txt
echo "rss_end_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee -a $out/rss.txt
kill $pid; for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done; rm -rf $d
