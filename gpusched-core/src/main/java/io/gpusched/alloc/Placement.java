package io.gpusched.alloc;

import java.util.List;

/** The allocator's answer for one job: placed now, blocked for now, or never placeable. */
public sealed interface Placement permits Placement.Placed, Placement.Blocked, Placement.Infeasible {

    /**
     * The job can start now on these GPUs.
     *
     * @param gpus distinct GPU indices in ascending order, as many as requested
     */
    record Placed(List<Integer> gpus) implements Placement {
        /**
         * Copies the list.
         *
         * @param gpus see {@link #gpus()}
         */
        public Placed {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * The job cannot start now but could on emptier GPUs; it stays pending and smaller jobs behind it
     * may backfill.
     *
     * @param reason one line for the status board, e.g.
     *     {@code needs 1 GPU with ≥ 18944 MiB headroom; best is gpu1 with 12030 MiB}
     * @param rejections one entry per GPU saying which rule rejected it
     */
    record Blocked(String reason, List<Rejection> rejections) implements Placement {
        /**
         * Copies the list.
         *
         * @param reason see {@link #reason()}
         * @param rejections see {@link #rejections()}
         */
        public Blocked {
            rejections = List.copyOf(rejections);
        }
    }

    /**
     * The job could not start even if every allowed GPU were empty; it fails at once.
     *
     * @param reason one line saying why, e.g. {@code needs 2 GPUs but only 1 is allowed}
     */
    record Infeasible(String reason) implements Placement {
    }
}
