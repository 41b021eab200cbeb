package io.gpusched.policy;

import java.util.List;

/** What the policy decided for one waiting job this round. */
public sealed interface Decision permits Decision.Start, Decision.Wait, Decision.Fail {
    /** @return the job's key */
    String key();

    /**
     * Start it now on these GPUs.
     *
     * @param key the job's key
     * @param gpus distinct GPU indices, ascending
     */
    record Start(String key, List<Integer> gpus) implements Decision {
        /**
         * Copies the list.
         *
         * @param key see {@link #key()}
         * @param gpus see {@link #gpus()}
         */
        public Start {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * It keeps waiting.
     *
     * @param key the job's key
     * @param reason one line for the board, e.g. {@code needs 1 GPU with ≥ 18944 MiB headroom; best is gpu1
     *     with 12030 MiB; gpu0 is reserved for job 7, waiting 42m}
     */
    record Wait(String key, String reason) implements Decision {
    }

    /**
     * It can never be placed: it fails at once.
     *
     * @param key the job's key
     * @param reason why
     */
    record Fail(String key, String reason) implements Decision {
    }
}
