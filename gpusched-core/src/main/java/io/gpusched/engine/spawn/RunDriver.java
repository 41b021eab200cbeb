package io.gpusched.engine.spawn;

import io.gpusched.gpu.GpuSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How a run executes, for the dispatcher: a local process in a session of its own ({@link JobLauncher}),
 * a client's {@code srun} lease, or a run placed elsewhere (a Slurm job). A local run is named by its
 * token and run files, leads a session the scheduler can signal and attribute GPU memory to, and reports
 * its exit status once. A driver that {@link #placesItself() places its runs itself} gives each run as
 * {@link Elsewhere}: no local session, no GPU of this machine, its measurements and its end reported by
 * the driver, and a cancel of its own.
 */
public interface RunDriver {
    /**
     * Whether this driver's own system chooses where runs go (a cluster's scheduler): then the engine
     * only orders and limits what is handed to it, picks no GPU, and gives each run an empty GPU list.
     *
     * @return false for the local drivers
     */
    default boolean placesItself() {
        return false;
    }

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
     */
    record Launch(String command, List<Integer> gpus, GpuSnapshot snapshot, Path log, Map<String, String> jobVars,
                  String runToken, RunFiles.Paths files, Optional<Path> workDir,
                  Optional<Map<String, String>> environment, Optional<RunAs> runAs) {
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
     * @param sessionId its session (and process group) id: what signals and attribution use;
     *     {@link io.gpusched.journal.RunHandle#NO_SESSION} for a run {@link Elsewhere}
     * @param exit completes with its leader's exit status when it ends, on any thread
     * @param elsewhere present for a run placed, measured and stopped by the driver's own system
     */
    record Started(long sessionId, CompletableFuture<Integer> exit, Optional<Elsewhere> elsewhere) {
        /**
         * A local run.
         *
         * @param sessionId its session (and process group) id
         * @param exit completes with its leader's exit status
         */
        public Started(long sessionId, CompletableFuture<Integer> exit) {
            this(sessionId, exit, Optional.empty());
        }

        /**
         * A run elsewhere: no local session; its exit is its report's.
         *
         * @param run the run as its driver holds it
         * @return the start
         */
        public static Started elsewhere(Elsewhere run) {
            return new Started(io.gpusched.journal.RunHandle.NO_SESSION, run.ended().thenApply(Report::exitCode),
                    Optional.of(run));
        }
    }

    /**
     * A run that no local session stands for (a Slurm job): the driver's system placed it, measures it
     * and ends it. The engine never signals, samples or sweeps for it.
     */
    interface Elsewhere {
        /** @return what it runs as, e.g. {@link io.gpusched.journal.RunHandle.Slurm} with its job id */
        io.gpusched.journal.RunHandle handle();

        /** @return completes once, on any thread, with how it ended and what it measured */
        CompletableFuture<Report> ended();

        /**
         * Asks its system to stop it (a cancel, a timeout, a preemption); it ends through {@link #ended()},
         * whenever its system says so. Called on the engine's thread: must not wait long.
         */
        void cancel();

        /**
         * Whether its system enforces its time limit itself (Slurm's {@code --time}): then the engine,
         * which cannot know when it really started, does not time it out.
         *
         * @return true unless the driver says otherwise
         */
        default boolean enforcesItsTimeLimit() {
            return true;
        }
    }

    /**
     * How a run {@link Elsewhere} ended, as its driver measured it.
     *
     * @param exitCode its command's exit status
     * @param gpus the GPUs its system gave it, as it saw them (may be empty when unknown)
     * @param peakMib the peak memory its processes used on each GPU, in MiB; empty when not measured
     * @param measured whether its memory was measured at all (false: no verdict is drawn from the peaks)
     * @param avgUtil its mean GPU utilisation in percent, when measured
     * @param took how long its command ran, by its system's clock
     */
    record Report(int exitCode, List<Integer> gpus, Map<Integer, Long> peakMib, boolean measured,
                  java.util.OptionalDouble avgUtil, java.time.Duration took) {
        /** Copies the collections. */
        public Report {
            gpus = List.copyOf(gpus);
            peakMib = Map.copyOf(peakMib);
        }
    }

    /**
     * @throws IOException when it could not start; the caller withdraws the run's intent
     */
    Started start(Launch launch) throws IOException;
}
