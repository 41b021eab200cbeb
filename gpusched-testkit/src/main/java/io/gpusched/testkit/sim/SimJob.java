package io.gpusched.testkit.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The portable simulated GPU job, for machines where the native {@code simjob} cannot run. Same
 * flags, same files and same exit codes as {@code src/main/c/simjob.c}; start it through
 * {@link SimJobs#command()}, which prefers the native one.
 *
 * <p>Flags: {@code --vram MiB} (required; per GPU in {@code CUDA_VISIBLE_DEVICES}, GPU 0 when unset
 * or empty), {@code --ramp s} (default 0.5), {@code --hold s} (default 1), {@code --exit-code N},
 * {@code --oom-once MARKER}, {@code --spike MiB --spike-at s --spike-for s} (default 0.3 s) and
 * {@code --ignore-term}. While running it rewrites {@code $GPUSCHED_SIM_DIR/<pid>.json} every 50 ms
 * and removes it on exit; SIGTERM exits with 143 and SIGINT with 130. A bad command line exits with 2.
 */
public final class SimJob {
    static final String SIM_DIR_ENV = "GPUSCHED_SIM_DIR";
    static final String DEFAULT_SIM_DIR = "/tmp/gpusched_sim";
    static final String PROBE_OUTPUT = "simjob java";
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int EXIT_USAGE = 2;

    private volatile boolean stopping;
    private final CountDownLatch cleanedUp = new CountDownLatch(1);
    private final Thread mainThread = Thread.currentThread();

    private SimJob() {
    }

    /**
     * Runs the simulated job and exits the JVM with its status.
     *
     * @param args the flags described on this class
     */
    public static void main(String[] args) {
        System.exit(new SimJob().run(Arrays.asList(args), System.getenv(), System.out, System.err));
    }

    private int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(SimJobOptions.USAGE);
            return 0;
        }
        if (args.contains("--probe")) {
            out.println(PROBE_OUTPUT);
            return 0;
        }
        SimJobOptions options;
        List<Integer> gpus;
        try {
            options = SimJobOptions.parse(args);
            gpus = visibleGpus(env.getOrDefault("CUDA_VISIBLE_DEVICES", ""));
        } catch (SimJobOptions.UsageException e) {
            err.print("simjob: " + e.getMessage() + "\n" + SimJobOptions.USAGE);
            return EXIT_USAGE;
        }
        if (options.oomMarker().isPresent()) {
            Path marker = Path.of(options.oomMarker().get());
            if (!Files.exists(marker)) {
                try {
                    createMarker(marker);
                } catch (IOException e) {
                    // without the marker every retry would fail the same way; say so instead
                    err.println("simjob: cannot create --oom-once marker " + marker + ": " + e);
                    return EXIT_USAGE;
                }
                err.println("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate " + options.vramMib()
                        + " MiB (simulated by gpusched simjob; marker " + marker + ")");
                return 1;
            }
        }
        String dirName = env.getOrDefault(SIM_DIR_ENV, "");
        Path dir = Path.of(dirName.isEmpty() ? DEFAULT_SIM_DIR : dirName);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            err.println("simjob: cannot create " + SIM_DIR_ENV + " " + dir + ": " + e);
        }
        installSignalHandlers(options.ignoreTerm());
        long pid = ProcessHandle.current().pid();
        return loop(options, new Reporter(dir, pid, gpus, err));
    }

    private int loop(SimJobOptions o, Reporter reporter) {
        long start = System.nanoTime();
        long end = seconds(o.durationSeconds());
        long spikeAt = seconds(o.spikeAtSeconds());
        long spikeEnd = seconds(o.spikeAtSeconds() + o.spikeForSeconds());
        try {
            while (true) {
                long t = System.nanoTime() - start;
                if (stopping || t >= end) {
                    break;
                }
                reporter.report(o.usageAt(t / 1e9));
                // wake at the next tick, or earlier at a phase edge so a short spike is always reported
                long next = t + TICK_NANOS;
                if (o.spikeMib() > 0 && spikeAt > t && spikeAt < next) {
                    next = spikeAt;
                }
                if (o.spikeMib() > 0 && spikeEnd > t && spikeEnd < next) {
                    next = spikeEnd;
                }
                next = Math.min(next, end);
                // parkNanos returns early when the shutdown hook unparks this thread
                LockSupport.parkNanos(start + next - System.nanoTime());
            }
        } finally {
            reporter.remove();
            cleanedUp.countDown();
        }
        // after a signal the JVM is already exiting with 128 + signal; this value is then unused
        return o.exitCode();
    }

    private static long seconds(double s) {
        return (long) (s * 1e9);
    }

    /**
     * SIGTERM and SIGINT make the JVM run shutdown hooks and then exit with 128 + signal, as the C
     * twin does. The hook stops the loop and waits until the main thread has removed the usage file.
     * Ignoring SIGTERM has no public API, so that one case goes through {@code sun.misc.Signal},
     * reflectively so the build stays free of internal-API warnings.
     */
    private void installSignalHandlers(boolean ignoreTerm) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (cleanedUp.getCount() == 0) {
                return; // a normal exit: nothing left to stop
            }
            stopping = true;
            LockSupport.unpark(mainThread);
            try {
                cleanedUp.await(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "simjob-stop"));
        if (ignoreTerm) {
            try {
                Class<?> signal = Class.forName("sun.misc.Signal");
                Class<?> handler = Class.forName("sun.misc.SignalHandler");
                Object ignore = handler.getField("SIG_IGN").get(null);
                Object term = signal.getConstructor(String.class).newInstance("TERM");
                signal.getMethod("handle", signal, handler).invoke(null, term, ignore);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("--ignore-term is not supported by this JVM (" + e + ")", e);
            }
        }
    }

    private static void createMarker(Path marker) throws IOException {
        Path parent = marker.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!Files.exists(marker)) {
            Files.createFile(marker);
        }
    }

    static List<Integer> visibleGpus(String cudaVisibleDevices) {
        List<Integer> gpus = new ArrayList<>();
        for (String token : cudaVisibleDevices.split(",")) {
            String t = token.strip();
            if (t.isEmpty()) {
                continue;
            }
            try {
                int g = Integer.parseInt(t);
                if (g >= 0 && g <= 1_000_000) {
                    gpus.add(g);
                    continue;
                }
            } catch (NumberFormatException e) {
                // reported below, with the whole variable
            }
            throw new SimJobOptions.UsageException("CUDA_VISIBLE_DEVICES=" + cudaVisibleDevices
                    + ": simulated GPUs are named by index, e.g. 0,1");
        }
        if (gpus.isEmpty()) {
            gpus.add(0);
        }
        return gpus;
    }

    /** Writes the usage file atomically: a reader sees the old report or the new one, never half. */
    private static final class Reporter {
        private final Path file;
        private final Path tmp;
        private final long pid;
        private final List<Integer> gpus;
        private final PrintStream err;
        private boolean warned;

        Reporter(Path dir, long pid, List<Integer> gpus, PrintStream err) {
            this.file = dir.resolve(pid + ".json");
            this.tmp = dir.resolve("." + pid + ".tmp");
            this.pid = pid;
            this.gpus = gpus;
            this.err = err;
        }

        void report(long mib) {
            StringBuilder json = new StringBuilder("{\"pid\": ").append(pid).append(", \"usage\": {");
            for (int i = 0; i < gpus.size(); i++) {
                json.append(i == 0 ? "" : ", ").append('"').append(gpus.get(i)).append("\": ").append(mib);
            }
            json.append("}}\n");
            try {
                Files.write(tmp, json.toString().getBytes(StandardCharsets.US_ASCII));
                move();
            } catch (IOException e) {
                // keep running: the job's exit status still matters even if nobody sees its usage
                if (!warned) {
                    err.println("simjob: cannot write " + file + ": " + e);
                    warned = true;
                }
            }
        }

        private void move() throws IOException {
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        }

        void remove() {
            try {
                Files.deleteIfExists(file);
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                // the backend drops files of dead pids, so a leftover does no lasting harm
            }
        }
    }
}
