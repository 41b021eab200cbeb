package io.gpusched.policy;

import io.gpusched.alloc.Request;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A waiting job as the policy sees it.
 *
 * @param key its identity
 * @param no its display number
 * @param request what it asks the allocator for (pinning included)
 * @param priority its declared priority (higher first)
 * @param position its place in the queue when priorities tie: file order, then submissions, then
 *     jobs requeued after a time slice; lower first
 * @param queuedAt since when it waits (for aging and for the reservation threshold)
 * @param owner the user it runs for (for fair share)
 * @param timeout its time limit, if any: only a job with one may use a GPU reserved for another
 */
public record Candidate(String key, int no, Request request, int priority, long position, Instant queuedAt, String owner,
                        Optional<Duration> timeout) {
    /**
     * Checks for nulls.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param request see {@link #request()}
     * @param priority see {@link #priority()}
     * @param position see {@link #position()}
     * @param queuedAt see {@link #queuedAt()}
     * @param owner see {@link #owner()}
     * @param timeout see {@link #timeout()}
     */
    public Candidate {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(queuedAt, "queuedAt");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(timeout, "timeout");
    }
}
