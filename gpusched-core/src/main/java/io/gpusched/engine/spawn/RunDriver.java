package io.gpusched.engine.spawn;

import io.gpusched.gpu.GpuSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How a run executes, for the dispatcher: today a local process in a session of its own
 * ({@link JobLauncher}); a client's {@code srun} lease or a Slurm job can be others. Whatever executes
 * it, a run is named by its token and run files, leads a session the scheduler can signal and attribute
 * GPU memory to, and reports its exit status once.
 */
public interface RunDriver {
    /**
     * Everything a run is started with.
     *
     * @param command the shell command, run as by {@code sh -c}: the job's command, with its setup and
     *     conda environment around it when it has them ({@link EnvironmentScript})
     * @param gpus the GPUs it got
     * @param snapshot the snapshot they were chosen on (for device UUIDs)
     * @param log where its output goes
     * @param jobVars extra environment ({@code GPUSCHED_JOB_NO}, ...)
     * @param runToken the value of {@link JobLauncher#RUN_VARIABLE}
     * @param files its pid, exit and command files
     * @param workDir where it starts; empty means the scheduler's working directory
     * @param environment the whole environment it starts from; empty means the scheduler's
     * @param runAs the user the command runs as, with the log it writes as that user; empty means the
     *     scheduler's user, writing {@code log}
     * @param umask for a submission run as the scheduler's user, its client's creation mask: {@code log},
     *     when it does not exist yet, is created with it (the command runs with it too); empty otherwise
     */
    record Launch(String command, List<Integer> gpus, GpuSnapshot snapshot, Path log, Map<String, String> jobVars,
                  String runToken, RunFiles.Paths files, Optional<Path> workDir,
                  Optional<Map<String, String>> environment, Optional<RunAs> runAs, java.util.OptionalInt umask) {
    }

    /**
     * A command run as another user (a root daemon running a user's submission, {@link OwnerLaunch}).
     *
     * @param user the user's name, as the kernel named the submitter
     * @param log the file its output goes to, opened as that user
     * @param umask the creation mask it runs with, 0 to 0777
     */
    record RunAs(String user, Path log, int umask) {
    }

    /**
     * A run that started.
     *
     * @param sessionId its session (and process group) id: what signals and attribution use
     * @param exit completes with its leader's exit status when it ends, on any thread
     */
    record Started(long sessionId, CompletableFuture<Integer> exit) {
    }

    /**
     * @throws IOException when it could not start; the caller withdraws the run's intent
     */
    Started start(Launch launch) throws IOException;

    /**
     * @return whether a run it starts is a process, which reads its launch's command, token, run files,
     *     working directory and environment; false for a stand-in that runs nothing (a simulation's),
     *     whose launches are given their GPUs, snapshot, log and job variables only, the rest empty
     */
    default boolean startsProcess() {
        return true;
    }
}
