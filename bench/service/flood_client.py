#!/usr/bin/env python3
"""Holds connections open to a gpusched socket for bench/service/flood.sh (issue #28, finding 11).

usage: flood_client.py SOCKET COUNT [PARTIAL_BYTES]

Opens COUNT connections; with PARTIAL_BYTES, writes that many bytes of one request line on each,
without its end (a slowloris), sending what the daemon takes within a few seconds (a daemon may stop
reading; the rest waits here). Prints one summary line, then `ready`, and holds everything open until
its stdin closes.
"""
import resource
import socket
import sys
import time

path, count = sys.argv[1], int(sys.argv[2])
partial = int(sys.argv[3]) if len(sys.argv) > 3 else 0
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

socks = []
failed = 0
for _ in range(count):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        socks.append(s)
    except OSError:
        failed += 1
        s.close()

sent = 0
if partial:
    line = b'{"v":1,"op":"hello","pad":"' + b"x" * partial
    line = line[:partial]
    left = {s: memoryview(line) for s in socks}
    for s in socks:
        s.setblocking(False)
    last = time.monotonic()
    while left and time.monotonic() - last < 3:
        for s in list(left):
            try:
                n = s.send(left[s])
            except BlockingIOError:
                continue
            except OSError:
                del left[s]
                continue
            sent += n
            last = time.monotonic()
            left[s] = left[s][n:]
            if not left[s]:
                del left[s]
        time.sleep(0.01)

time.sleep(0.5)
refused = 0
for s in socks:
    s.setblocking(False)
    try:
        if b"too_many_connections" in s.recv(4096, socket.MSG_PEEK):
            refused += 1
    except OSError:
        pass
print(f"connected {len(socks)} (connect failed {failed}), refused by the daemon {refused}, "
      f"partial-line bytes sent (kernel buffers included) {sent / 2**20:.1f} MiB", flush=True)
print("ready", flush=True)
sys.stdin.read()
