package io.gpusched.testkit.sim;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pretend GPUs for running the scheduler without hardware (provider {@code sim}, the original's
 * {@code --sim N}). Each GPU has a fixed total (24000 MiB unless set), optional static external usage,
 * and whatever the simulated jobs ({@link SimJobs#command()}) report through their usage files in
 * {@link #directory()}. Because those jobs are real child processes of the scheduler, the scheduler's
 * attribution of processes to jobs works exactly as on real GPUs.
 *
 * <p>A GPU's used memory is its external usage plus every report for it, <em>clamped at the
 * total</em>, as a real full GPU never reports more than it has; the {@link GpuProcess}es keep the
 * full amounts they claim, so over-use stays visible per process. Utilisation is 90 % on a GPU with
 * a simulated process and 0 otherwise. Simulated GPUs have no UUID or PCI id.
 *
 * <pre>{@code
 * try (var gpus = SimulatedGpuBackend.builder(2).totalMib(80_000).external(0, 1_200).build()) {
 *     GpuSnapshot now = gpus.snapshot();
 * }
 * }</pre>
 *
 * <p>Why one long file: the builder, the per-GPU sizes and the reading of the jobs' usage files are
 * one pretend device, and its public builder is the API tests and embedders use.
 */
public final class SimulatedGpuBackend implements GpuBackend {
    /** Total memory of a simulated GPU unless set, in MiB: the original's {@code --sim} default. */
    public static final long DEFAULT_TOTAL_MIB = 24_000;
    /**
     * The pid external usage is reported under. Linux pids are below 2<sup>22</sup>, so no process,
     * and so no job, ever has it: the scheduler sees the usage as someone else's.
     */
    public static final long EXTERNAL_PID = 1L << 22;
    /** Utilisation reported for a GPU that has a simulated process on it, in percent. */
    public static final int BUSY_UTIL_PERCENT = 90;
    /** Environment variable naming the usage directory, read by the simulated job. */
    public static final String SIM_DIR_ENV = SimJob.SIM_DIR_ENV;
    /** Environment variable holding the command prefix that starts a simulated job. */
    public static final String SIMJOB_ENV = "GPUSCHED_SIMJOB";

    private final int gpus;
    private final long totalMib;
    /** Per-GPU totals that differ from {@link #totalMib}, so one box can mix 24 GB and 80 GB cards. */
    private final SortedMap<Integer, Long> totalByGpu;
    private final SortedMap<Integer, Long> externalMib;
    private final Path directory;
    private final boolean ownsDirectory;
    private final UsageDirectory usage;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Why a user's job got no directory of its own, for the next snapshot: set on the scheduler's thread. */
    private final java.util.Queue<String> userWarnings = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * {@code gpus} empty GPUs of {@value #DEFAULT_TOTAL_MIB} MiB each, reporting to
     * {@code $GPUSCHED_SIM_DIR} when set, else to a private temporary directory.
     *
     * @param gpus how many GPUs, at least 1
     * @throws IllegalArgumentException if {@code gpus < 1}
     * @throws BackendException if the usage directory cannot be created
     */
    public SimulatedGpuBackend(int gpus) {
        this(builder(gpus), System.getenv());
    }

    private SimulatedGpuBackend(Builder b, Map<String, String> env) {
        this.gpus = b.gpus;
        this.totalMib = b.totalMib;
        this.totalByGpu = new TreeMap<>(b.totalByGpu);
        for (int gpu : totalByGpu.keySet()) {
            if (gpu >= gpus) {
                throw new IllegalArgumentException("a total names GPU " + gpu + " but there are only "
                        + gpus + " simulated GPUs (0-" + (gpus - 1) + ")");
            }
        }
        this.externalMib = new TreeMap<>(b.externalMib);
        for (int gpu : externalMib.keySet()) {
            if (gpu >= gpus) {
                throw new IllegalArgumentException("external usage names GPU " + gpu + " but there are only "
                        + gpus + " simulated GPUs (0-" + (gpus - 1) + ")");
            }
        }
        String fromEnv = env.getOrDefault(SIM_DIR_ENV, "");
        try {
            if (b.directory.isPresent() || !fromEnv.isEmpty()) {
                this.directory = b.directory.orElseGet(() -> Path.of(fromEnv)).toAbsolutePath();
                this.ownsDirectory = false;
                Files.createDirectories(directory);
            } else {
                // Named after this process, so the next simulation removes it if this one dies without its
                // hooks (ExitOnOutOfMemoryError, SIGKILL); and removes what such deaths left before.
                LeftTempDirectories.sweep(Path.of(System.getProperty("java.io.tmpdir")), Path.of("/proc"));
                this.directory = Files.createTempDirectory(LeftTempDirectories.prefix("gpusched-sim-"));
                this.ownsDirectory = true;
                if (SimJobs.RUNS_AS_ROOT) {
                    // A root scheduler's users reach their own directories in it, and list nothing of it.
                    Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx--x--x"));
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw new BackendException("sim: cannot create the usage directory (" + e.getMessage()
                    + "); pass a writable one with dir=PATH or " + SIM_DIR_ENV, e);
        }
        this.usage = new UsageDirectory(directory, Path.of("/proc"));
    }

    /**
     * @param gpus how many GPUs, at least 1
     * @return a builder for {@code gpus} GPUs of {@value #DEFAULT_TOTAL_MIB} MiB without external usage
     * @throws IllegalArgumentException if {@code gpus < 1}
     */
    public static Builder builder(int gpus) {
        return new Builder(gpus);
    }

    /** @return the directory simulated jobs report to; passed to jobs as {@value #SIM_DIR_ENV} */
    public Path directory() {
        return directory;
    }

    /** @return how many GPUs there are; their indices are 0 to {@code gpuCount() - 1} */
    public int gpuCount() {
        return gpus;
    }

    /** @return the total memory of each GPU in MiB that was not given its own ({@link #totalMib(int)}) */
    public long totalMib() {
        return totalMib;
    }

    /**
     * @param gpu a GPU index
     * @return that GPU's total memory in MiB
     */
    public long totalMib(int gpu) {
        return totalByGpu.getOrDefault(gpu, totalMib);
    }

    /** @return GPU index to the static external usage on it in MiB; GPUs without any are absent */
    public Map<Integer, Long> externalMib() {
        return Map.copyOf(externalMib);
    }

    /**
     * Reads the usage files. Files of processes that have died (or are zombies) are deleted and
     * ignored; files that are not usage reports are skipped with a warning; reports for GPUs beyond
     * {@link #gpuCount()} are ignored with a warning.
     *
     * @throws BackendException when the directory cannot be read, or after {@link #close()}
     */
    @Override
    public GpuSnapshot snapshot() {
        if (closed.get()) {
            throw new BackendException("sim backend is closed; create a new one");
        }
        UsageDirectory.Scan scan;
        try {
            scan = usage.scan();
        } catch (IOException | UncheckedIOException e) {
            throw new BackendException("sim: cannot read the usage directory " + directory + " (" + e.getMessage()
                    + "); check that it exists and is readable", e);
        } finally {
            // A scan that overlapped close() may have recreated the directory close() just removed
            // (scan recreates a missing one); whichever of the two looks last removes it.
            if (closed.get()) {
                removeOwnedDirectory();
            }
        }
        long[] used = new long[gpus];
        boolean[] busy = new boolean[gpus];
        externalMib.forEach((gpu, mib) -> used[gpu] += mib);
        List<GpuProcess> processes = new ArrayList<>();
        externalMib.forEach((gpu, mib) -> {
            if (mib > 0) {
                processes.add(new GpuProcess(gpu, EXTERNAL_PID, mib));
            }
        });
        Set<String> warnings = new LinkedHashSet<>(scan.warnings());
        for (String w; (w = userWarnings.poll()) != null; ) {
            warnings.add(w);
        }
        for (UsageReport report : scan.reports()) {
            report.usageMib().forEach((gpu, mib) -> {
                if (gpu >= gpus) {
                    warnings.add("sim: process " + report.pid() + " reports usage on GPU " + gpu + " but only GPUs 0-"
                            + (gpus - 1) + " exist; start simulated jobs with CUDA_VISIBLE_DEVICES set");
                } else if (mib > 0) {
                    used[gpu] = Math.addExact(used[gpu], mib);
                    busy[gpu] = true;
                    processes.add(new GpuProcess(gpu, report.pid(), mib));
                }
            });
        }
        processes.sort(Comparator.comparingInt(GpuProcess::gpu).thenComparingLong(GpuProcess::pid));
        List<GpuStat> stats = new ArrayList<>(gpus);
        for (int i = 0; i < gpus; i++) {
            long total = totalMib(i);
            stats.add(new GpuStat(i, Optional.empty(), "simulated", Optional.empty(), total,
                    Math.min(used[i], total), OptionalInt.of(busy[i] ? BUSY_UTIL_PERCENT : 0), true));
        }
        return new GpuSnapshot(stats, processes, List.copyOf(warnings));
    }

    /** @return e.g. {@code sim (2 GPUs x 24000 MiB, usage in /tmp/gpusched-sim-123)} */
    @Override
    public String describe() {
        String sizes = totalByGpu.isEmpty() ? " x " + totalMib + " MiB"
                : " of " + java.util.stream.IntStream.range(0, gpus).mapToObj(g -> String.valueOf(totalMib(g)))
                        .collect(java.util.stream.Collectors.joining(", ")) + " MiB";
        return "sim (" + gpus + (gpus == 1 ? " GPU" : " GPUs") + sizes + ", usage in " + directory + ")";
    }

    /**
     * @return {@value #SIM_DIR_ENV} = {@link #directory()}, and {@value #SIMJOB_ENV} =
     *     {@link SimJobs#shellCommand()}, so a jobs file line can read
     *     {@code [vram=8G] $GPUSCHED_SIMJOB --vram 8000 --ramp 1 --hold 2}
     */
    @Override
    public Map<String, String> jobEnvironment() {
        return Map.of(SIM_DIR_ENV, directory.toString(), SIMJOB_ENV, SimJobs.shellCommand());
    }

    /**
     * A job a root scheduler runs as {@code user} reports to a directory of that user's own in
     * {@link #directory()} (made on first use, theirs, mode 0700), so no user can read or write another's
     * reports, and a report there counts only for a process of theirs. Where that directory cannot be
     * made (the usage directory is not root's alone, say), the next snapshot warns why and the job gets
     * {@link #jobEnvironment()}: it runs, but what it reports is not seen.
     *
     * @param user the Unix user the job runs as
     * @return {@link #jobEnvironment()} with {@value #SIM_DIR_ENV} naming the user's own directory
     */
    @Override
    public Map<String, String> jobEnvironment(String user) {
        try {
            return Map.of(SIM_DIR_ENV, usage.userDirectory(user).toString(), SIMJOB_ENV, SimJobs.shellCommand());
        } catch (IOException | RuntimeException e) {
            userWarnings.add("sim: cannot give " + user + " a usage directory in " + directory + " (" + e.getMessage()
                    + "); the GPU memory of their simulated jobs is not seen");
            return jobEnvironment();
        }
    }

    /**
     * Deletes the usage directory with everything in it if this backend created it (never one given
     * with {@link Builder#directory} or {@value #SIM_DIR_ENV}); idempotent, never throws.
     */
    @Override
    public void close() {
        if (!closed.getAndSet(true)) {
            removeOwnedDirectory();
        }
    }

    private void removeOwnedDirectory() {
        if (ownsDirectory) {
            usage.remove();
        }
    }

    /**
     * Configures simulated GPUs. Reusable: {@link #build()} does not change the builder.
     */
    public static final class Builder {
        private final int gpus;
        private long totalMib = DEFAULT_TOTAL_MIB;
        private final SortedMap<Integer, Long> totalByGpu = new TreeMap<>();
        private final SortedMap<Integer, Long> externalMib = new TreeMap<>();
        private Optional<Path> directory = Optional.empty();

        private Builder(int gpus) {
            if (gpus < 1) {
                throw new IllegalArgumentException("a simulation needs at least 1 GPU, got " + gpus);
            }
            this.gpus = gpus;
        }

        /**
         * @param mib total memory of each GPU in MiB, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code mib < 1}
         */
        public Builder totalMib(long mib) {
            if (mib < 1) {
                throw new IllegalArgumentException("GPU total memory must be at least 1 MiB, got " + mib);
            }
            this.totalMib = mib;
            return this;
        }

        /**
         * @param gpu GPU index, below the GPU count (checked by {@link #build()})
         * @param mib that GPU's total memory in MiB, at least 1; others keep {@link #totalMib(long)}'s
         * @return this builder
         * @throws IllegalArgumentException if {@code gpu} is negative or {@code mib < 1}
         */
        public Builder totalMib(int gpu, long mib) {
            if (gpu < 0 || mib < 1) {
                throw new IllegalArgumentException("a GPU total needs gpu >= 0 and at least 1 MiB, got GPU " + gpu
                        + " with " + mib + " MiB");
            }
            totalByGpu.put(gpu, mib);
            return this;
        }

        /**
         * Static usage by a process outside the scheduler, reported under {@link #EXTERNAL_PID}.
         *
         * @param gpu GPU index, below the GPU count
         * @param mib memory in MiB, at least 0; replaces an earlier value for the same GPU
         * @return this builder
         * @throws IllegalArgumentException if {@code gpu} or {@code mib} is negative (an index beyond
         *     the GPU count is rejected by {@link #build()})
         */
        public Builder external(int gpu, long mib) {
            if (gpu < 0 || mib < 0) {
                throw new IllegalArgumentException("external usage needs gpu >= 0 and mib >= 0, got GPU " + gpu
                        + " with " + mib + " MiB");
            }
            externalMib.put(gpu, mib);
            return this;
        }

        /**
         * @param dir the usage directory, created if missing and never deleted by the backend;
         *     without one, {@code $GPUSCHED_SIM_DIR} when set, else a private temporary directory
         *     that {@link SimulatedGpuBackend#close()} deletes
         * @return this builder
         */
        public Builder directory(Path dir) {
            this.directory = Optional.of(dir);
            return this;
        }

        /**
         * @return a new backend
         * @throws IllegalArgumentException if external usage names a GPU beyond the count
         * @throws BackendException if the usage directory cannot be created
         */
        public SimulatedGpuBackend build() {
            return new SimulatedGpuBackend(this, System.getenv());
        }

        /** For tests: builds as if the process environment were {@code env}. */
        SimulatedGpuBackend build(Map<String, String> env) {
            return new SimulatedGpuBackend(this, env);
        }
    }
}
