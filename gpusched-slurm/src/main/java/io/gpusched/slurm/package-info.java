/**
 * Running a gpusched jobs file on a Slurm cluster: {@link io.gpusched.slurm.SlurmExecutor} submits each job with
 * {@code sbatch} under {@link io.gpusched.slurm.SlurmWrap}, which measures the job's VRAM on the compute node;
 * {@link io.gpusched.slurm.SlurmMapping} turns a job's declaration into GPUs or shards.
 */
package io.gpusched.slurm;
