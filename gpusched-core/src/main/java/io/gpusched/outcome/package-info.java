/**
 * The outcome rules every driver applies when an attempt ends, pure: the
 * {@link io.gpusched.outcome.AttemptJudge} (ok, failed, cancelled, timed out, a CUDA OOM run again
 * with a bumped declaration, or a preempted attempt or a used-up time slice run again) over an
 * attempt's {@link io.gpusched.outcome.AttemptFacts}, the
 * {@link io.gpusched.outcome.Verdicts} (declaration verdict, OOM signatures, the bump), reading a log's
 * end ({@link io.gpusched.outcome.LogTail}), and the {@code vram=auto} words for a command nothing was
 * learned from yet ({@link io.gpusched.outcome.NothingLearned}).
 *
 * <p>No clock, no process, no file written: a driver (the local engine, the Slurm executor) gathers the
 * facts, asks the judge, and journals and reports what it decided; the testkit's replay asks it the
 * same of each replayed attempt. Uses only the values below it ({@code model}, {@code event}'s stop
 * reasons, {@code jobs}' units and {@code on-timeout=}).
 *
 * <p>Internal: exported only to {@code io.gpusched.slurm} and {@code io.gpusched.testkit}.
 */
package io.gpusched.outcome;
