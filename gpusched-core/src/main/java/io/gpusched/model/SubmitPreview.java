package io.gpusched.model;

import java.util.List;
import java.util.Objects;

/**
 * What the scheduler would do with a job if it were submitted now ({@code gpusched submit --dry-run}):
 * start it at once on some GPUs, keep it waiting (and why), or refuse it because it could never run.
 * Nothing is queued or journaled to find out.
 */
public sealed interface SubmitPreview permits SubmitPreview.Starts, SubmitPreview.Waits, SubmitPreview.Never {

    /**
     * It would start now.
     *
     * @param gpus the GPU indices it would get, ascending; never empty
     */
    record Starts(List<Integer> gpus) implements SubmitPreview {
        /**
         * Copies the list.
         *
         * @param gpus see {@link #gpus()}
         */
        public Starts {
            gpus = List.copyOf(gpus);
            if (gpus.isEmpty()) {
                throw new IllegalArgumentException("a start names at least one GPU");
            }
        }
    }

    /**
     * It would be queued and wait.
     *
     * @param reason the reason the queue would show, e.g. {@code needs 1 GPU with ≥ 8704 MiB headroom; ...}
     */
    record Waits(String reason) implements SubmitPreview {
        /**
         * Checks the reason.
         *
         * @param reason see {@link #reason()}
         */
        public Waits {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * It could never run here: a submission is refused with this reason.
     *
     * @param reason the reason the scheduler gives a job that ends infeasible, e.g.
     *     {@code needs 3 GPUs but only 2 are present}
     */
    record Never(String reason) implements SubmitPreview {
        /**
         * Checks the reason.
         *
         * @param reason see {@link #reason()}
         */
        public Never {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
