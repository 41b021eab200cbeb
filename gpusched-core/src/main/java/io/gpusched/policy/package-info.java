/**
 * The queue policy: in which order waiting jobs are offered GPUs, and when the head of the queue
 * gets GPUs reserved (or preemptible jobs stopped) so that it cannot starve. Pure, like the
 * allocator it drives: no clock (the time comes in), no processes, no files.
 */
package io.gpusched.policy;
