package io.gpusched.model;

import io.gpusched.Scheduler;

/** What {@link Scheduler#leaseEnded} made of a holder's report. */
public enum LeaseEnd {
    /** Taken: the job ends with the reported status (or, without one, once nothing of its run is left). */
    RECORDED,
    /** The job had already ended (cancelled, or ended while the holder was away). */
    ALREADY_ENDED,
    /** No lease of that number is held with that token: a wrong number or token, or not a lease. */
    NOT_HELD
}
