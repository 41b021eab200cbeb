/**
 * gpusched on Slurm: {@link io.gpusched.slurm.SlurmExecutor} runs a jobs file with {@code sbatch},
 * {@code squeue} and {@code scancel}, and {@link io.gpusched.slurm.SlurmWrap} measures each job inside
 * it on the compute node.
 *
 * <p>It judges attempts by core's outcome rules and writes core's journal, through packages core
 * exports to this module only.
 */
module io.gpusched.slurm {
    requires transitive io.gpusched; // its API speaks in core's jobs, events and results
    requires com.fasterxml.jackson.core;

    exports io.gpusched.slurm;
}
