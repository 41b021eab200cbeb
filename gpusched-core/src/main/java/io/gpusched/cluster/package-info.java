/**
 * Runs on a cluster that places them itself (Slurm): the port a cluster's driver implements so that the
 * scheduler's own engine runs a jobs file there ({@link io.gpusched.Scheduler.Builder#cluster}). The
 * engine keeps the queue, the journal, the outcome rules and the status board; the cluster picks the
 * GPUs, runs the command, measures it and stops it. gpusched-slurm's executor is the driver there is.
 */
package io.gpusched.cluster;
