/**
 * A simulated machine for the engine on a virtual clock ({@code SimulatedMachine}): a run driver whose
 * runs start no process and exit when their work is done in virtual time, the process table standing for
 * their sessions (a signal ends one at once, as the sim job exits the instant it is told), and a GPU
 * backend that reports each run's modelled peak on its GPUs. The replay ({@code gpusched simulate}) is
 * the real engine on these. Uses {@code proc}, {@code spawn} and {@code loop}.
 */
package io.gpusched.engine.sim;
