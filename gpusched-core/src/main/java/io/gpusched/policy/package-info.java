/**
 * The queue policy: in which order waiting jobs are offered GPUs, and when the head of the queue
 * gets GPUs reserved (or preemptible jobs stopped) so that it cannot starve. Pure, like the
 * allocator it drives: no clock (the time comes in), no processes, no files.
 *
 * <p>Exported for embedders: {@link io.gpusched.policy.PolicyOptions} is part of
 * {@code SchedulerOptions}, and {@link io.gpusched.policy.QueuePolicy} answers "who runs next, and why
 * does this one wait" for a program that plans outside a running scheduler, as {@code gpusched simulate}
 * does. The engine is its main user; nothing here reaches the engine.
 */
package io.gpusched.policy;
