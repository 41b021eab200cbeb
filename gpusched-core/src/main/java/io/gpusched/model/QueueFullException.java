package io.gpusched.model;

import io.gpusched.Scheduler;


/**
 * A submission refused because its owner already has as many jobs queued or running as one user may
 * ({@link Scheduler.Builder#maxQueuedPerUser}, {@code gpusched serve --max-queued-per-user}), or because
 * their jobs would then hold more bytes of commands and environments than one user's may
 * ({@link Scheduler.Builder#maxQueuedSizePerUser}, {@code --max-queued-size-per-user}). Nothing
 * was journaled and no display number was used; the same submission succeeds once some of the owner's
 * jobs have ended or been cancelled.
 */
public final class QueueFullException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** The user the submission was for. */
    private final String owner;
    /** How many jobs not yet ended one user may have. */
    private final int limit;

    /**
     * @param owner the user the submission was for
     * @param limit how many jobs not yet ended one user may have
     */
    public QueueFullException(String owner, int limit) {
        this(owner + " already has " + limit + " job" + (limit == 1 ? "" : "s") + " queued or running, the most one user"
                + " may have (gpusched serve --max-queued-per-user " + limit + "); wait for some to end, or cancel some",
                owner, limit);
    }

    private QueueFullException(String message, String owner, int limit) {
        super(message);
        this.owner = owner;
        this.limit = limit;
    }

    /**
     * The same refusal again, its message unchanged: to be thrown on the caller's thread.
     *
     * @param refused a refusal thrown elsewhere
     */
    public QueueFullException(QueueFullException refused) {
        this(refused.getMessage(), refused.owner, refused.limit);
    }

    /**
     * A submission refused because the submissions its owner has not ended, with it, would hold more of
     * their text and environments than one user may ({@code gpusched serve --max-queued-size-per-user}):
     * the journal keeps them on disk and the scheduler in memory until they end.
     *
     * @param owner the user the submission was for
     * @param held the size of their submissions not yet ended, in bytes
     * @param size the refused submission's, in bytes
     * @param limitMib the most one user's may hold, in MiB
     * @param jobs how many submissions not yet ended they have
     * @param maxJobs how many one user may have ({@link #limit()})
     * @return the refusal
     */
    public static QueueFullException ofSize(String owner, long held, long size, long limitMib, int jobs, int maxJobs) {
        String option = "(gpusched serve --max-queued-size-per-user " + limitMib + "M)";
        String message = jobs == 0
                ? owner + "'s job would hold " + mib(size) + " of command and environment, more than one user's jobs"
                        + " queued or running may hold " + option + "; submit it with a smaller environment"
                : owner + "'s " + jobs + " job" + (jobs == 1 ? "" : "s") + " queued or running hold " + mib(held)
                        + " of commands and environments, and this one " + mib(size) + ": more than one user's may hold "
                        + option + "; wait for some to end, or cancel some";
        return new QueueFullException(message, owner, maxJobs);
    }

    private static String mib(long bytes) {
        return bytes < 1024 * 1024 ? bytes + " bytes" : String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /** @return the user the submission was for */
    public String owner() {
        return owner;
    }

    /** @return how many jobs not yet ended one user may have */
    public int limit() {
        return limit;
    }
}
