/**
 * What the GPUs and jobs are doing: one bounded backend read per round ({@code GpuReader},
 * {@code BoundedBackend}), memory attributed to each run's session ({@code Measurer}), utilisation
 * windows and per-job memory timelines. Reads; never decides or writes the journal.
 */
package io.gpusched.engine.observe;
