#!/usr/bin/env python3
"""N jobs-file lines for timing `gpusched simulate` (bench/all.sh, section sim): one-GPU jobs of 2 to 20 GiB
that run 10 s to 1 h each (a trailing `# duration=`), drawn from a fixed seed, so every checkout replays the
same file. A 4 x 24000 MiB machine keeps most of them waiting, so each job's end re-plans a long queue.

usage: bench/replay/sweep_lines.py N [SEED=5] > FILE
"""
import random
import sys

n = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
for i in range(n):
    print(f"[vram={rng.choice([2, 4, 8, 12, 20])}G] python train.py --seed {i} # duration={rng.randint(10, 3600)}s")
