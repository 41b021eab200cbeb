/**
 * Simulated GPUs for demos and tests, no hardware needed: the backend provider {@code sim}
 * ({@link io.gpusched.testkit.sim.SimulatedGpuBackendProvider}, option {@code gpus=N}) and the simulated
 * job ({@link io.gpusched.testkit.sim.SimJobs}) that reports the VRAM it "uses" to the simulated backend.
 */
package io.gpusched.testkit.sim;
