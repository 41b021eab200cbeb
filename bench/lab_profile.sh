#!/usr/bin/env bash
# Where the daemon's memory and CPU go with N queued (issue #27): the daemon as bench/lab_scale.sh starts
# it (bin/gpusched's JVM flags), filled with N submissions through the socket, then a class histogram
# (live objects, after a full GC), and a JFR recording (settings=profile) over TRIPS sequential round
# trips and 10 clients x 100 submissions; then one `gpusched queue`. A benchmark aid, not a test.
# Usage: bench/lab_profile.sh JAR N OUTDIR   (then e.g. `jfr print --events jdk.ExecutionSample OUTDIR/trips.jfr`)
set -euo pipefail
jar=$1; n=$2; out=$3; mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
opts=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xms8m -Xmn4m -XX:-UsePerfData -Xshare:auto)
d=$(mktemp -d); echo '[vram=20G] sleep 3600' >"$d/jobs.txt"
# extract client.py from lab_scale.sh
sed -n "/^cat >\"\$work\/client.py\" <<'EOF'/,/^EOF/p" "$root/bench/lab_scale.sh" | sed '1d;$d' > $d/client.py
java "${opts[@]}" -XX:+UsePerfData -cp "$jar" io.gpusched.cli.Main serve --jobs "$d/jobs.txt" --sim 1 --socket "$d/s.sock" --log-dir "$d/logs" >"$d/daemon.log" 2>&1 &
pid=$!
until java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" >/dev/null 2>&1; do sleep 0.2; done
(cd $d && python3 client.py s.sock fill $n) | tee $out/fill.txt
echo "rss_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee $out/rss.txt
jcmd $pid GC.class_histogram > $out/histo.txt
echo "rss_after_gc_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee -a $out/rss.txt
jcmd $pid GC.heap_info > $out/heap.txt
jcmd $pid JFR.start name=p settings=profile filename=$out/trips.jfr >/dev/null
(cd $d && python3 client.py s.sock trips ${TRIPS:-300}) | tee $out/trips.txt
(cd $d && python3 client.py s.sock clients) | tee $out/clients.txt
jcmd $pid JFR.stop name=p >/dev/null
t0=$(date +%s%N); java "${opts[@]}" -cp "$jar" io.gpusched.cli.Main queue --socket "$d/s.sock" > $d/q.out; echo "queue_ms $(( ($(date +%s%N)-t0)/1000000 ))" | tee $out/queue.txt
echo "rss_end_mib $(awk '/VmRSS/ {printf "%.0f", $2/1024}' /proc/$pid/status)" | tee -a $out/rss.txt
kill $pid; wait $pid 2>/dev/null || true; rm -rf $d
