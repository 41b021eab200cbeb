/**
 * The values every other package speaks in, depending on nothing else of gpusched: a job's
 * {@link io.gpusched.model.JobStatus}, {@link io.gpusched.model.Verdict} and
 * {@link io.gpusched.model.JobResult}, a run's {@link io.gpusched.model.RunSummary}, a lease's
 * {@link io.gpusched.model.Grant}, who submitted ({@link io.gpusched.model.SubmitContext}), and
 * {@link io.gpusched.model.GpuschedException}, the base of every error the library throws.
 *
 * <p>This is the bottom of the core's package graph: the job grammar, the backend SPI, the journal,
 * the engine and the facade all use it, and it uses none of them, which is what keeps the graph free of
 * cycles (a build test checks that).
 */
package io.gpusched.model;
