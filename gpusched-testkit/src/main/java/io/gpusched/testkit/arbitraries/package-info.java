/**
 * Random generators of gpusched's domain values and a small property runner, for property tests of
 * the allocator, the jobs-file parser and (later) the engine.
 *
 * <p>{@link io.gpusched.testkit.arbitraries.Gen} is the generator type and
 * {@link io.gpusched.testkit.arbitraries.Property} runs a check over many generated values, shrinks a
 * failure by regeneration and reports a replayable seed. Domain generators live in
 * {@link io.gpusched.testkit.arbitraries.GpuArbitraries} and
 * {@link io.gpusched.testkit.arbitraries.JobSpecArbitraries}. Nothing here depends on a test
 * framework, so main code of the testkit may use it too.
 */
package io.gpusched.testkit.arbitraries;
