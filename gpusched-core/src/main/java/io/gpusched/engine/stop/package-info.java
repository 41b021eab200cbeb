/**
 * Stopping runs: per-job deadlines and cancellations escalating from SIGTERM to SIGKILL after the
 * grace ({@code Stops}), and the sweep of what outlives a run's leader ({@code Leftovers}).
 */
package io.gpusched.engine.stop;
