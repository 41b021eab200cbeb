package io.gpusched.service;

/**
 * An answer that holds something until written (a {@code queue} text's bytes, counted by a
 * {@link TextBudget}); a connection that closes before writing it all lets go of the rest here.
 */
interface HeldAnswer {
    /** Lets go of whatever is not written yet; a second call does nothing. */
    void release();
}
