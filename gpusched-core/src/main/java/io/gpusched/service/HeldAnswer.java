package io.gpusched.service;

/**
 * An answer that holds something until written (a {@code queue} text's share of a
 * {@link TextBudget}, the piece it may have rendered and not written); a connection that closes before
 * writing it all lets go of it here.
 */
interface HeldAnswer {
    /** Lets go of whatever is not written yet; a second call does nothing. */
    void release();
}
