#!/usr/bin/env python3
"""A daemon's CPU (all its threads, from /proc/PID/stat) and a raw client's wall per `queue` text, asked N
times on fresh connections: in chunks (CHUNKS 1, what `gpusched queue` asks) or after a `text_bytes` head
(0). Issue #27. Usage: bench/queue/text_cpu.py SOCK PID N CHUNKS [LAYOUT]. A benchmark, not a test:
the daemon's other threads (its scheduling loop) count too; take medians, interleave the builds compared."""
import json, os, socket, statistics, sys, time

sock, pid, n, chunks = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
layout = sys.argv[5] if len(sys.argv) > 5 else "list"
tick = os.sysconf("SC_CLK_TCK")


def cpu_ms():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / tick


def one():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    f = s.makefile("rb")
    text = {"layout": layout}
    if chunks:
        text["chunks"] = True
    s.sendall((json.dumps({"v": 1, "op": "queue", "stream": True, "text": text}) + "\n").encode())
    head = json.loads(f.readline())
    total = 0
    if head.get("text_chunks"):
        while True:
            k = int(f.readline())
            if k == 0:
                break
            total += len(f.read(k))
    else:
        left = total = head["text_bytes"]
        while left > 0:
            left -= len(f.read(min(left, 1 << 20)))
    s.close()
    return total


walls, cpus = [], []
for _ in range(n):
    c0 = cpu_ms(); t0 = time.perf_counter(); size = one(); t1 = time.perf_counter()
    time.sleep(0.3)  # the daemon's last writes land before its CPU is read again
    walls.append((t1 - t0) * 1e3); cpus.append(cpu_ms() - c0)
print(f"{sock} chunks={int(chunks)} bytes={size} wall_ms median {statistics.median(walls):.0f} "
      f"daemon_cpu_ms median {statistics.median(cpus):.0f} each {[round(c) for c in cpus]}")
