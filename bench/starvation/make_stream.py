"""Writes the starvation workload of BENCHMARKS.md to stdout: 4 GPUs taken at the start by 1-GPU jobs that
end one after another, a 4-GPU job queued behind them, and a 1-GPU job arriving every 2.5 minutes for
8 hours; each of those runs 9.5 minutes under a 12-minute timeout, so a GPU frees every 2.5 minutes or
so, but never all four at once while the stream lasts."""
print("# Starvation replay (#13): gpusched simulate bench/starvation/stream.txt --gpus-spec 4x24000")
print("# A 4-GPU job queued behind a steady stream of 1-GPU jobs (one every 2.5 min for 8 h, 9.5 min each).")
print("# Regenerate: python3 bench/starvation/make_stream.py > bench/starvation/stream.txt")
for i, minutes in enumerate([2.5, 5, 7.5, 10]):
    print(f"[vram=20G timeout=12m] python train.py --seed {i} # duration={int(minutes * 60)}s")
print("[vram=20G gpus=4] python big.py # duration=1h at=1s")
t, n = 150, 0
while t <= 8 * 3600:
    print(f"[vram=20G timeout=12m] python sweep.py --seed {100 + n} # duration=570s at={t}s")
    t, n = t + 150, n + 1
