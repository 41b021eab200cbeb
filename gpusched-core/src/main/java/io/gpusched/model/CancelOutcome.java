package io.gpusched.model;

import io.gpusched.Scheduler;

/** What {@link Scheduler#cancel(int)} did. */
public enum CancelOutcome {
    /** It had not started: it is journaled cancelled and never runs. */
    CANCELLED,
    /** It was running: its session got SIGTERM (SIGKILL after the kill grace); it ends as cancelled. */
    STOPPING,
    /** It had already ended (or was being stopped); nothing changed. */
    ALREADY_ENDED,
    /** No job of this scheduler's queue has that number. */
    NOT_FOUND
}
