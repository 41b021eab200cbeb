package io.gpusched.journal;

/**
 * What an attempt in flight runs as, decoded from the one number the journal's {@code started} line
 * holds ({@code pgid}): a session of its own, a lease in its client's terminal, or a start whose
 * session was never learned. The journal format is unchanged; this type is how code reads it.
 */
public sealed interface RunHandle {
    /** Stand-in session ids of lease runs are this plus the run: above Linux's pid_max (2^22). */
    long LEASE_SESSIONS = 1L << 29;
    /** The session id the journal writes for a run whose session is unknown: above any pid. */
    long NO_SESSION = Integer.MAX_VALUE;

    /** @return the number the journal's {@code started} line spells this by */
    long pgid();

    /**
     * A local run in a session of its own.
     *
     * @param pgid its session (and process group) id
     */
    record Session(long pgid) implements RunHandle {
    }

    /**
     * A lease ({@code gpusched srun}): its command runs in its client's terminal, not a session here.
     *
     * @param run its run number
     */
    record Lease(long run) implements RunHandle {
        @Override
        public long pgid() {
            return LEASE_SESSIONS + run;
        }
    }

    /**
     * A run that started, whose session is unknown (its pid file was lost, or compaction kept only that
     * it started): no process can be found by it.
     */
    record Unknown() implements RunHandle {
        @Override
        public long pgid() {
            return NO_SESSION;
        }
    }

    /**
     * An attempt handed to Slurm ({@code gpusched --executor slurm}): no local session stands for it, so
     * no process here may be probed, signalled or swept by it. Known from the journal's
     * {@code slurm_submitted} line ({@link JournalState#slurmJob}), never decoded from a {@code pgid}.
     *
     * @param slurmJob the Slurm job id, at least 1
     */
    record Slurm(long slurmJob) implements RunHandle {
        /**
         * Checks the id.
         *
         * @param slurmJob see {@link #slurmJob()}
         */
        public Slurm {
            if (slurmJob < 1) {
                throw new IllegalArgumentException("a Slurm job id is at least 1, got " + slurmJob);
            }
        }

        @Override
        public long pgid() {
            return NO_SESSION;
        }
    }

    /**
     * @param pgid a {@code started} line's {@code pgid}
     * @return what it stands for
     */
    static RunHandle ofPgid(long pgid) {
        if (pgid >= LEASE_SESSIONS && pgid < 2 * LEASE_SESSIONS) {
            return new Lease(pgid - LEASE_SESSIONS);
        }
        return pgid == NO_SESSION ? new Unknown() : new Session(pgid);
    }
}
