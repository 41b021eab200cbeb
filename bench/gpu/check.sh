#!/usr/bin/env bash
# What it runs and what to look for: bench/gpu/README.md. Needs .dev/ from bench/gpu/prepare.sh.
# Device check: gpusched's NVML backend on a real GPU, jobs holding real VRAM (gpu_alloc), beside nvidia-smi.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
R=$PWD; G=/opt/gs; mkdir -p $G; cp -r .dev/jre .dev/gpusched.jar .dev/gpu_alloc $G/; chmod -R a+rX $G
J="$G/jre/bin/java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp $G/gpusched.jar io.gpusched.cli.Main"
echo "== machine"; date -u; uname -r; nvidia-smi -L; command -v java || echo "no java on PATH (carried jlink runtime used)"
nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,driver_version --format=csv
T=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
echo "== gpusched doctor"; $J doctor 2>&1 | head -40
W=/tmp/gs; rm -rf $W; mkdir -p $W; cd $W
( while :; do ts=$(date +%s.%N); nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits | sed "s/^/$ts, /";
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | sed "s/^/$ts, total, /"; sleep 0.2; done ) > $OUT/smi.csv 2>&1 &
SP=$!
A=$((T*55/100)); AD=$((T*60/100)); B=$((T*50/100))
cat > jobs.txt <<J
[vram=$AD] $G/gpu_alloc $A 25
[vram=2G] $G/gpu_alloc 3072 8
[vram=4G retries=1] $G/gpu_alloc $B 5
[vram=10G] $G/gpu_alloc 2048 5
$G/gpu_alloc 1024 3
J
echo "== jobs (GPU total $T MiB)"; cat jobs.txt
echo "== gpusched jobs.txt (NVML backend)"; start=$(date +%s)
timeout 150 $J jobs.txt --poll 1 -v --fresh 2>&1 | tee $OUT/run.txt; echo "rc=$? wall=$(( $(date +%s)-start ))s"
echo "== job logs"; for f in gpusched_logs/job*.log; do echo "-- $f"; grep -v '^$' "$f" | head -5; done
cp gpusched_logs/status.txt $OUT/status.txt 2>/dev/null
echo "== daemon: root serve (NVML), alice submits a real allocation"
id alice >/dev/null 2>&1 || useradd -m alice 2>&1
$J serve --poll 1 > $OUT/serve.txt 2>&1 & DP=$!
for i in $(seq 50); do [ -S /run/gpusched/gpusched.sock ] && break; sleep 0.2; done
echo "-- info, idle GPU (nvidia-smi: $(nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader))"; $J info 2>&1 | head -5
su alice -s /bin/sh -c "cd /tmp && $J submit --vram 3G -- $G/gpu_alloc 2500 6" 2>&1
sleep 4; echo "-- queue while it runs (root)"; $J queue 2>&1 | head; $J info 2>&1 | head -20
sleep 6; echo "-- queue after"; $J queue 2>&1 | head; $J show 1 2>&1 | head -30
echo "== restarts: alice's job keeps its GPU memory through a SIGKILLed and a SIGTERMed daemon"
su alice -s /bin/sh -c "cd /tmp && $J submit --vram 3G --name survivor -- $G/gpu_alloc 2500 30" 2>&1
sleep 6; $J queue 2>&1 | head -5
kill -KILL $DP; wait $DP 2>/dev/null; echo "daemon SIGKILLed; job processes still on the GPU:"
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
$J serve --poll 1 > $OUT/serve2.txt 2>&1 & DP=$!
for i in $(seq 50); do $J queue >/dev/null 2>&1 && break; sleep 0.2; done
sleep 3; echo "-- after the SIGKILL restart"; $J queue 2>&1 | head -5; $J info 2>&1 | head -8
kill -TERM $DP; wait $DP; echo "daemon SIGTERMed, rc=$?"; tail -3 $OUT/serve2.txt
$J serve --poll 1 > $OUT/serve3.txt 2>&1 & DP=$!
for i in $(seq 50); do $J queue >/dev/null 2>&1 && break; sleep 0.2; done
sleep 3; echo "-- after the SIGTERM restart"; $J queue 2>&1 | head -5
for i in $(seq 40); do $J queue 2>&1 | grep -q running || break; sleep 1; done
echo "-- the survivor's record"; $J show 2 2>&1 | head -30
echo "== packing: alice submits 8 jobs, each declaring 20% of the card and taking 18% for 6 s: 4 fit at once"
P=$((T*20/100)); PT=$((T*18/100)); date +%s.%N > $OUT/pack.window
for i in $(seq 8); do su alice -s /bin/sh -c "cd /tmp && $J submit --vram ${P}M --name pack$i -- $G/gpu_alloc $PT 6" 2>&1 | tail -1; done
sleep 3; echo "-- queue while packed"; $J queue 2>&1 | head -14; $J info 2>&1 | head -6
for i in $(seq 60); do $J queue 2>&1 | grep -qE "running|waiting" || break; sleep 1; done
date +%s.%N >> $OUT/pack.window; echo "-- queue after packing"; $J queue --all 2>&1 | tail -10
echo "== srun: alice runs a 2,500 MiB allocation in her own session; the daemon measures it by its run token"
su alice -s /bin/sh -c "cd /tmp && $J srun --vram 3G -- $G/gpu_alloc 2500 6" 2>&1 | tail -6; echo "srun rc=${PIPESTATUS[0]}"
$J show 11 2>&1 | head -4
ls -l /var/lib/gpusched/ 2>&1 | head; kill $DP; wait $DP; echo "serve rc=$?"
for f in serve serve2 serve3; do echo "-- $f.txt"; tail -15 $OUT/$f.txt; done
kill $SP
echo "== nvidia-smi per-pid peak vs gpusched"; cd $W
python3 - "$OUT/smi.csv" <<'P'
import sys, re, glob, collections
peak = collections.defaultdict(int); tot = 0
for line in open(sys.argv[1]):
    p = [x.strip() for x in line.split(',')]
    if len(p) != 3: continue
    if p[1] == 'total': tot = max(tot, int(p[2])); continue
    try: peak[int(p[1])] = max(peak[int(p[1])], int(p[2]))
    except ValueError: pass
print("max total used (nvidia-smi):", tot, "MiB")
for f in sorted(glob.glob('gpusched_logs/job*.log')):
    for m in re.finditer(r'pid (\d+): (.*)', open(f).read()):
        print(f"{f}: pid {m.group(1)} nvidia-smi peak {peak.get(int(m.group(1)), 0)} MiB | {m.group(2)}")
P
grep -E "finished|WARN|retry|OOM" $OUT/run.txt
echo "== packing window: processes on the GPU at once (nvidia-smi samples), gpusched's declared total"
python3 - "$OUT/smi.csv" "$OUT/pack.window" "$T" <<'P'
import sys, collections
t0, t1 = [float(x) for x in open(sys.argv[2]).read().split()[:2]]; total = int(sys.argv[3])
at = collections.defaultdict(dict); used = {}
for line in open(sys.argv[1]):
    p = [x.strip() for x in line.split(',')]
    if len(p) != 3: continue
    try: ts = float(p[0])
    except ValueError: continue
    if not t0 <= ts <= t1: continue
    if p[1] == 'total': used[ts] = int(p[2]); continue
    try: at[ts][int(p[1])] = int(p[2])
    except ValueError: pass
most = max((len(v) for v in at.values()), default=0)
print(f"samples {len(at)}; most processes at once {most} (4 expected); distinct pids {len({q for v in at.values() for q in v})} (8 expected)")
print(f"most GPU memory used in the window {max(used.values(), default=0)} of {total} MiB")
P
