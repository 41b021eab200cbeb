/** A one-node Slurm cluster on this machine, for integration tests of the Slurm executor. */
package io.gpusched.testkit.slurm;
