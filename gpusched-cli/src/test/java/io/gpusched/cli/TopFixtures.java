package io.gpusched.cli;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Snapshots for top's tests: a busy two-GPU machine, and a tall queue. */
final class TopFixtures {
    private TopFixtures() {
    }

    static TopSnapshot busy() {
        return new TopSnapshot(
                List.of(new TopSnapshot.Gpu(0, 24000, 15000, OptionalInt.of(63), true, false),
                        new TopSnapshot.Gpu(1, 24000, 20480, OptionalInt.of(100), true, true)),
                List.of(new TopSnapshot.Running(3, "alice", 0, List.of(0), Map.of(0, 6000L), OptionalLong.of(8192), 754, false,
                                "python train.py --lr 3e-4"),
                        new TopSnapshot.Running(4, "bob", 2, List.of(0), Map.of(0, 4500L), OptionalLong.of(4096), 65, false,
                                "python finetune.py"),
                        new TopSnapshot.Running(5, "carol", 0, List.of(1), Map.of(1, 20480L), OptionalLong.empty(), 3723, true,
                                "./render.sh")),
                List.of(new TopSnapshot.Pending(6, "dave", 5, OptionalLong.of(16384),
                                "needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 5312 MiB", "python big.py"),
                        new TopSnapshot.Pending(7, "alice", 0, OptionalLong.empty(), "needs 1 fully idle GPU", "python eval.py")),
                List.of(new TopSnapshot.Finished(1, "alice", "ok", "within", OptionalLong.of(8192), 7900, "python prep.py"),
                        new TopSnapshot.Finished(2, "bob", "failed_oom", "under-declared", OptionalLong.of(2048), 2100,
                                "python oom.py")));
    }

    /** One GPU, two running jobs and {@code pending} waiting ones. */
    static TopSnapshot tall(int pending) {
        List<TopSnapshot.Pending> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < pending; i++) {
            waiting.add(new TopSnapshot.Pending(10 + i, "u" + i % 3, i % 4, OptionalLong.of(1024L * (1 + i % 5)),
                    "gpu0 is paused", "sleep " + i));
        }
        return new TopSnapshot(List.of(new TopSnapshot.Gpu(0, 24000, 3000, OptionalInt.empty(), true, true)),
                List.of(new TopSnapshot.Running(1, "eve", 0, List.of(0), Map.of(0, 1000L), OptionalLong.of(2048), 5, false, "a"),
                        new TopSnapshot.Running(2, "eve", 0, List.of(0), Map.of(0, 2000L), OptionalLong.of(2048), 5, false, "b")),
                waiting, List.of());
    }
}
