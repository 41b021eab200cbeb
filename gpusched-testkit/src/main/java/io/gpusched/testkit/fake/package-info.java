/**
 * {@link io.gpusched.testkit.fake.ScriptedGpuBackend}: a backend that plays back scripted snapshots and
 * failures, for deterministic tests of code that consumes a {@link io.gpusched.gpu.GpuBackend}.
 */
package io.gpusched.testkit.fake;
