package io.gpusched.slurm;

import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.proc.ProcSessions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The wrapper each Slurm job runs ({@code gpusched slurm-wrap}): starts the command in a session of its own with
 * its output appended to {@code DIR/job.log}, samples the GPU backend on the compute node for that session's
 * processes, and writes {@code DIR/started.json} when it starts and {@code DIR/result.json} (peak VRAM per GPU,
 * mean utilisation, exit status) when it ends. Its exit status is the command's.
 *
 * <pre>{@code gpusched slurm-wrap --out DIR [--job-no N] [--job-key KEY] [--backend nvml|sim] [--backend-option k=v]...
 *     [--sample S] -- CMD...}</pre>
 *
 * <p>The command gets what a local run's job gets of itself: {@code GPUSCHED_GPUS}, the GPUs it sees (those of
 * {@code CUDA_VISIBLE_DEVICES}, else {@code SLURM_JOB_GPUS}; unset when neither names one), and
 * {@code GPUSCHED_JOB_NO} and {@code GPUSCHED_JOB_KEY} as the submitter gave them (unset without); one the
 * submitter's environment passed on through {@code sbatch} is never left in their place.
 *
 * <p>A SIGTERM (Slurm's {@code scancel}, or its time limit) is passed to the whole session, and the result is
 * still written, so the submitting side knows the peak of a cancelled or timed-out job too.
 */
public final class SlurmWrap {
    private static final String USAGE = "usage: gpusched slurm-wrap --out DIR [--job-no N] [--job-key KEY]"
            + " [--backend NAME] [--backend-option k=v]... [--sample SECONDS] -- COMMAND...";
    /** The command's processes are its session's, read as the local engine reads a job's. */
    private static final ProcSessions PROC = ProcSessions.system();

    private SlurmWrap() {
    }

    /**
     * Runs the wrapper as a program.
     *
     * @param args as {@link #run(List, PrintStream)} takes them
     */
    public static void main(String[] args) {
        System.exit(run(List.of(args), System.err));
    }

    /**
     * Runs the command under measurement and waits for it.
     *
     * @param args {@code --out DIR}, optional {@code --job-no N} and {@code --job-key KEY} (what the command's
     *     {@code GPUSCHED_JOB_NO} and {@code GPUSCHED_JOB_KEY} say), {@code --backend NAME} (default: detect),
     *     {@code --backend-option key=value} (repeatable), {@code --sample SECONDS} (default 0.2), then
     *     {@code --} and the command
     * @param err where the wrapper's own complaints go (Slurm's output file)
     * @return the command's exit status; 2 for a bad command line
     */
    public static int run(List<String> args, PrintStream err) {
        WrapArgs a;
        try {
            a = WrapArgs.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("gpusched slurm-wrap: " + e.getMessage() + "; " + USAGE);
            return 2;
        }
        return new Wrapped(a, System.getenv(), err).run();
    }

    /**
     * The wrapper's command line, read as a local run reads its options: {@code --name value} or
     * {@code --name=value}, each option once ({@code --backend-option} once per key), {@code --sample} in
     * seconds as a local run's (more than 0, at most 86400; sampled no faster than every 10 ms).
     *
     * @param out where the run's files go
     * @param jobNo the job's number in its jobs file, for {@code GPUSCHED_JOB_NO}
     * @param jobKey the job's identity key, for {@code GPUSCHED_JOB_KEY}
     * @param backend the GPU backend to sample, or detect one
     * @param backendOptions the backend's {@code key=value} options
     * @param sample time between samples
     * @param command the command and its arguments, not empty
     */
    record WrapArgs(Path out, Optional<String> jobNo, Optional<String> jobKey, Optional<String> backend,
                    Map<String, String> backendOptions, Duration sample, List<String> command) {
        private static final Duration FASTEST_SAMPLE = Duration.ofMillis(10);

        /**
         * @param args the words after {@code slurm-wrap}
         * @return them read
         * @throws IllegalArgumentException naming what is wrong, in one line
         */
        static WrapArgs parse(List<String> args) {
            Map<String, String> given = new LinkedHashMap<>();
            Map<String, String> backendOptions = new LinkedHashMap<>();
            int i = 0;
            for (; i < args.size() && !args.get(i).equals("--"); i++) {
                String a = args.get(i);
                int eq = a.indexOf('=');
                String name = a.startsWith("--") && eq > 0 ? a.substring(0, eq) : a;
                if (!Set.of("--out", "--job-no", "--job-key", "--backend", "--backend-option", "--sample").contains(name)) {
                    throw new IllegalArgumentException("unknown option " + a);
                }
                String v;
                if (!name.equals(a)) {
                    v = a.substring(eq + 1);
                } else if (i + 1 < args.size() && !args.get(i + 1).equals("--")) {
                    v = args.get(++i);
                } else {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                if (v.isEmpty()) {
                    throw new IllegalArgumentException(name + " needs a value, got an empty one");
                }
                if (name.equals("--backend-option")) {
                    int kv = v.indexOf('=');
                    if (kv < 1) {
                        throw new IllegalArgumentException("--backend-option wants key=value, got '" + v + "'");
                    }
                    String before = backendOptions.putIfAbsent(v.substring(0, kv), v.substring(kv + 1));
                    if (before != null) {
                        throw new IllegalArgumentException("--backend-option " + v.substring(0, kv) + " given twice ("
                                + before + ", " + v.substring(kv + 1) + "): give it once");
                    }
                    continue;
                }
                String before = given.putIfAbsent(name, v);
                if (before != null) {
                    throw new IllegalArgumentException(name + " given twice (" + before + ", " + v + "): give it once");
                }
            }
            if (!given.containsKey("--out") || i + 1 >= args.size()) {
                throw new IllegalArgumentException("needs --out and a command");
            }
            String no = given.get("--job-no");
            if (no != null && !no.matches("[1-9][0-9]{0,9}")) {
                throw new IllegalArgumentException("--job-no must be a job number (1, 2...), got '" + no + "'");
            }
            return new WrapArgs(Path.of(given.get("--out")), Optional.ofNullable(no),
                    Optional.ofNullable(given.get("--job-key")), Optional.ofNullable(given.get("--backend")), backendOptions,
                    given.containsKey("--sample") ? sample(given.get("--sample")) : Duration.ofMillis(200),
                    List.copyOf(args.subList(i + 1, args.size())));
        }

        private static Duration sample(String v) {
            double s;
            try {
                s = Double.parseDouble(v.strip());
            } catch (NumberFormatException e) {
                s = Double.NaN;
            }
            if (!(s > 0 && s <= 86400)) { // NaN too
                throw new IllegalArgumentException("--sample must be more than 0 and at most 86400 seconds, got " + v);
            }
            Duration d = Duration.ofNanos(Math.round(s * 1e9));
            return d.compareTo(FASTEST_SAMPLE) < 0 ? FASTEST_SAMPLE : d;
        }
    }

    /**
     * The GPUs a Slurm job was given, as it sees them: the indices of {@code CUDA_VISIBLE_DEVICES} (which Slurm
     * sets for gpu and shard requests, renumbered from 0 under {@code ConstrainDevices}), else those of
     * {@code SLURM_JOB_GPUS} (where {@code CUDA_VISIBLE_DEVICES} names none: unset, UUIDs, {@code NoDevFiles}).
     *
     * @param env the wrapper's environment
     * @return the indices, in the order given; empty when neither names one
     */
    static List<Integer> visibleGpus(Map<String, String> env) {
        for (String var : List.of("CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS")) {
            List<Integer> out = new ArrayList<>();
            for (String s : env.getOrDefault(var, "").split(",")) {
                if (s.strip().matches("[0-9]{1,9}")) {
                    out.add(Integer.parseInt(s.strip()));
                }
            }
            if (!out.isEmpty()) {
                return out;
            }
        }
        return List.of();
    }

    /**
     * Sets what a local run's job is told of itself ({@code GPUSCHED_GPUS}, {@code GPUSCHED_JOB_NO},
     * {@code GPUSCHED_JOB_KEY}) in the command's environment, as plain values (no shell reads them); one not
     * known here is removed, so that a value the submitter's own environment passed on through
     * {@code sbatch} (a submitter run inside a gpusched job) is not taken for this job's; that job's run
     * token ({@code GPUSCHED_RUN}) is removed too.
     *
     * @param env the command's environment, changed
     * @param gpus the GPUs it sees
     * @param jobNo its number, when the submitter gave it
     * @param jobKey its key, when the submitter gave it
     */
    static void jobEnvironment(Map<String, String> env, List<Integer> gpus, Optional<String> jobNo,
                               Optional<String> jobKey) {
        set(env, "GPUSCHED_GPUS", gpus.isEmpty() ? Optional.empty() : Optional.of(
                gpus.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))));
        set(env, "GPUSCHED_JOB_NO", jobNo);
        set(env, "GPUSCHED_JOB_KEY", jobKey);
        // A local gpusched run's token, passed on by sbatch from a submitter started inside a local job: a job
        // carrying it is that run's to a local scheduler on this node, whose sweep of the run's leftovers
        // would kill it.
        env.remove(LOCAL_RUN_VARIABLE);
    }

    /** The environment entry a local scheduler marks its runs' processes with (core's {@code JobLauncher.RUN_VARIABLE}). */
    static final String LOCAL_RUN_VARIABLE = "GPUSCHED_RUN";

    private static void set(Map<String, String> env, String name, Optional<String> value) {
        if (value.isPresent()) {
            env.put(name, value.get());
        } else {
            env.remove(name);
        }
    }

    /** One wrapped command: its process, its samples and its peaks. */
    private static final class Wrapped {
        private final Path dir;
        private final Optional<String> jobNo;
        private final Optional<String> jobKey;
        private final Optional<String> backendName;
        private final BackendOptions backendOptions;
        private final Duration sample;
        private final List<String> command;
        private final PrintStream err;
        private final Map<Integer, Long> peaks = new TreeMap<>();
        private final List<Integer> gpus;
        private double utilSum;
        private int utilSamples;
        private Optional<String> measurement = Optional.empty();

        Wrapped(WrapArgs a, Map<String, String> env, PrintStream err) {
            this.dir = a.out();
            this.jobNo = a.jobNo();
            this.jobKey = a.jobKey();
            this.backendName = a.backend();
            this.backendOptions = new BackendOptions(a.backendOptions());
            this.sample = a.sample();
            this.command = a.command();
            this.gpus = visibleGpus(env);
            this.err = err;
        }

        int run() {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                err.println("gpusched slurm-wrap: cannot create " + dir + ": " + e.getMessage());
                return 2;
            }
            String host = hostName();
            long started = System.currentTimeMillis();
            List<String> argv = new ArrayList<>();
            // setsid: the command leads a session of its own, so its processes are found by session id
            // (as a local run finds its job's) and one signal to the group reaches them all.
            argv.add("setsid");
            argv.addAll(command);
            try (GpuBackend backend = openBackend()) {
                return runWith(backend, argv, host, started);
            }
        }

        private int runWith(GpuBackend backend, List<String> argv, String host, long started) {
            Process p;
            try {
                ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(WrapReport.LOG).toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                // what the backend tells its jobs (the simulated GPUs' usage directory), as a local run does
                pb.environment().putAll(backend.jobEnvironment());
                jobEnvironment(pb.environment(), gpus, jobNo, jobKey);
                p = pb.start();
            } catch (IOException e) {
                err.println("gpusched slurm-wrap: cannot start " + command.get(0) + ": " + e.getMessage());
                writeResult(0, host, started, 127);
                return 127;
            }
            long session = p.pid();
            WrapReport.writeAtomically(dir, WrapReport.STARTED, new WrapReport(session, gpus, host, started,
                    java.util.OptionalLong.empty(), OptionalInt.empty(), Map.of(), OptionalDouble.empty(),
                    Optional.empty()).encode());
            // scancel and Slurm's time limit send SIGTERM: pass it on to the session and still report.
            Thread hook = new Thread(() -> {
                if (p.isAlive()) {
                    signalSession(session);
                    try {
                        p.waitFor(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    writeResult(session, host, started, p.isAlive() ? 143 : p.exitValue());
                }
            }, "gpusched-slurm-wrap-term");
            Runtime.getRuntime().addShutdownHook(hook);
            int exit;
            try {
                exit = sampleUntilExit(p, session, backend);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 130;
            }
            writeResult(session, host, started, exit);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs already, and writes the same result
            }
            return exit;
        }

        private GpuBackend openBackend() {
            try {
                return backendName.isPresent() ? GpuBackends.load(backendName.get(), backendOptions)
                        : GpuBackends.detect(backendOptions);
            } catch (RuntimeException e) {
                measurement = Optional.of("no GPU backend on " + hostName() + ": " + e.getMessage());
                err.println("gpusched slurm-wrap: " + measurement.get() + "; the job runs unmeasured");
                return new GpuBackend() {
                    @Override
                    public GpuSnapshot snapshot() {
                        return new GpuSnapshot(List.of(), List.of());
                    }

                    @Override
                    public String describe() {
                        return "none";
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        }

        private int sampleUntilExit(Process p, long session, GpuBackend backend) throws InterruptedException {
            while (true) {
                sampleOnce(session, backend);
                if (p.waitFor(sample.toMillis(), TimeUnit.MILLISECONDS)) {
                    sampleOnce(session, backend);
                    return p.exitValue();
                }
            }
        }

        private void sampleOnce(long session, GpuBackend backend) {
            GpuSnapshot snap;
            try {
                snap = backend.snapshot();
            } catch (RuntimeException e) {
                return; // one failed query loses one sample, not the job
            }
            Set<Long> members = new HashSet<>(PROC.members(session));
            Map<Integer, Long> now = new HashMap<>();
            for (GpuProcess gp : snap.processes()) {
                if (members.contains(gp.pid())) {
                    now.merge(gp.gpu(), gp.usedMib(), Long::sum);
                }
            }
            now.forEach((gpu, mib) -> peaks.merge(gpu, mib, Math::max));
            if (!now.isEmpty()) {
                double util = 0;
                int n = 0;
                for (GpuStat g : snap.gpus()) {
                    if (now.containsKey(g.index()) && g.utilPercent().isPresent()) {
                        util += g.utilPercent().getAsInt();
                        n++;
                    }
                }
                if (n > 0) {
                    utilSum += util / n;
                    utilSamples++;
                }
            }
        }

        private synchronized void writeResult(long session, String host, long started, int exit) {
            if (Files.exists(dir.resolve(WrapReport.RESULT))) {
                return;
            }
            WrapReport r = new WrapReport(session, gpus, host, started,
                    java.util.OptionalLong.of(System.currentTimeMillis()), OptionalInt.of(exit), peaks,
                    utilSamples == 0 ? OptionalDouble.empty() : OptionalDouble.of(utilSum / utilSamples), measurement);
            try {
                WrapReport.writeAtomically(dir, WrapReport.RESULT, r.encode());
            } catch (UncheckedIOException e) {
                err.println("gpusched slurm-wrap: " + e.getMessage());
            }
        }

        private static void signalSession(long session) {
            for (long pid : PROC.members(session)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            }
        }


        private static String hostName() {
            try {
                return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            } catch (IOException e) {
                return System.getenv().getOrDefault("SLURMD_NODENAME", "unknown");
            }
        }
    }
}
