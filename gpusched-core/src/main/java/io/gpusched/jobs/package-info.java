/**
 * Jobs as values: {@link io.gpusched.jobs.JobSpec} (one line of a jobs file, e.g.
 * {@code JobSpec.parse("[vram=8G] python eval.py")}) with its scheduling attributes
 * ({@link io.gpusched.jobs.Scheduling}) and what its command runs in
 * ({@link io.gpusched.jobs.RunEnvironment}: {@code conda=}, {@code setup=}), the jobs-file parser
 * {@link io.gpusched.jobs.JobsFileParser}, job identity keys ({@link io.gpusched.jobs.JobKeys}) and
 * the MiB/duration units ({@link io.gpusched.jobs.Units}). Parse errors are
 * {@link io.gpusched.jobs.JobSpecException}s with file, line and a hint.
 */
package io.gpusched.jobs;
