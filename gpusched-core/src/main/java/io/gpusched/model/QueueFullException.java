package io.gpusched.model;

import io.gpusched.Scheduler;


/**
 * A submission refused because its owner already has as many jobs queued or running as one user may
 * ({@link Scheduler.Builder#maxQueuedPerUser}, {@code gpusched serve --max-queued-per-user}). Nothing
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
        super(owner + " already has " + limit + " job" + (limit == 1 ? "" : "s") + " queued or running, the most one user"
                + " may have (gpusched serve --max-queued-per-user " + limit + "); wait for some to end, or cancel some");
        this.owner = owner;
        this.limit = limit;
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
