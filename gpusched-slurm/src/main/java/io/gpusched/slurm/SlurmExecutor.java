package io.gpusched.slurm;

import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Requirements;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEntries;
import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalState;
import io.gpusched.model.RunSummary;
import io.gpusched.options.SchedulerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs a gpusched jobs file on Slurm ({@code gpusched jobs.txt --executor slurm}) with the scheduler's own
 * engine: the queue, the live jobs file (its {@code cancel} words), the journal, the outcome rules, the OOM
 * retries and the status board are a local run's; Slurm is the engine's cluster ({@code SlurmDriver}), which
 * places and runs each attempt and whose wrapper ({@link SlurmWrap}) measures it on the compute node. Slurm
 * queues and packs; the engine picks no GPU.
 *
 * <p>Resuming: each attempt is journalled ({@code slurm_submitted}) as soon as {@code sbatch} answers and
 * followed again by that id, or by its name when its submitter died between {@code sbatch} and the journal
 * line, and never submitted twice; a wiped or {@code --fresh} journal never adopts an older run's Slurm
 * jobs (see {@code SlurmDriver}). Jobs keep running in Slurm while no submitter watches.
 */
public final class SlurmExecutor {
    private final Path jobsFile;
    private final Path logDir;
    private final SlurmOptions options;
    private final CommandRunner commands;
    private final List<String> wrapper;
    private final Consumer<SchedulerEvent> events;
    private final Consumer<String> notes;
    private final SlurmMapping mapping;
    private final Requirements rules;
    private volatile Scheduler scheduler;
    private volatile boolean stopRequested;

    /**
     * @param jobsFile the jobs file
     * @param logDir where the journal ({@code journal.jsonl}) and each attempt's directory
     *     ({@code slurm/job<NNN>-<attempt>/}: {@code job.log}, {@code started.json}, {@code result.json},
     *     {@code slurm.out}) go; must be on a file system the compute nodes share
     * @param options how to use the cluster
     * @param commands runs {@code sbatch}, {@code squeue} and {@code scancel}
     * @param wrapper the command prefix that starts {@link SlurmWrap} on a compute node, e.g.
     *     {@code java -cp gpusched.jar io.gpusched.slurm.SlurmWrap} ({@link #defaultWrapper()})
     * @param events the run's events, the same a local run gives (its log lines)
     * @param notes what only Slurm runs say, one line each, e.g. {@code job 2 submitted to Slurm as job 41 (--gres=shard:2)}
     */
    public SlurmExecutor(Path jobsFile, Path logDir, SlurmOptions options, CommandRunner commands, List<String> wrapper,
                         Consumer<SchedulerEvent> events, Consumer<String> notes) {
        this(jobsFile, logDir, options, commands, wrapper, events, notes, Requirements.NONE);
    }

    /**
     * As the constructor without rules, with requirement rules ({@code --requirements FILE}) applied to every line
     * before it is mapped, as a local run applies them.
     *
     * @param jobsFile the jobs file
     * @param logDir where the journal and the attempts' directories go
     * @param options how to use the cluster
     * @param commands runs {@code sbatch}, {@code squeue} and {@code scancel}
     * @param wrapper the command prefix that starts {@link SlurmWrap} on a compute node
     * @param events the run's events
     * @param notes what only Slurm runs say, one line each
     * @param rules the requirement rules ({@link Requirements#NONE} for none)
     */
    public SlurmExecutor(Path jobsFile, Path logDir, SlurmOptions options, CommandRunner commands, List<String> wrapper,
                         Consumer<SchedulerEvent> events, Consumer<String> notes, Requirements rules) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.jobsFile = jobsFile;
        this.logDir = logDir.toAbsolutePath();
        this.options = Objects.requireNonNull(options, "options");
        this.wrapper = List.copyOf(wrapper);
        this.events = events;
        this.notes = notes;
        this.commands = commands;
        this.mapping = new SlurmMapping(options.shardMib(), options.gpuShards());
    }

    /**
     * @return this JVM's {@code java} running {@link SlurmWrap} from this JVM's class path: right when the
     *     compute nodes see the same paths (a shared install), as on a one-node cluster
     */
    public static List<String> defaultWrapper() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), SlurmWrap.class.getName());
    }

    /** Makes {@link #run()} return, from any thread; submitted jobs keep running in Slurm. */
    public void stop() {
        stopRequested = true;
        Scheduler s = scheduler;
        if (s != null) {
            s.closeLeavingJobsRunning();
        }
    }

    /**
     * Checks every line can run on Slurm, without submitting anything.
     *
     * @param specs the jobs of the file
     * @throws SlurmException naming the first line Slurm cannot run, and how many more there are
     */
    void check(List<JobSpec> specs) {
        List<String> refused = new ArrayList<>();
        for (JobSpec s : specs) {
            if (mapping.map(s, source()) instanceof SlurmRequest.Refused r) {
                refused.add(r.message());
            }
        }
        if (!refused.isEmpty()) {
            throw new SlurmException(refused.get(0) + (refused.size() > 1 ? " (and " + (refused.size() - 1)
                    + " more line" + (refused.size() > 2 ? "s" : "") + " Slurm cannot run)" : ""));
        }
    }

    private String source() {
        return String.valueOf(jobsFile.getFileName());
    }

    /**
     * Runs the file until every job has ended (or {@link #stop()}).
     *
     * @return the outcomes, this run's and the journal's earlier ones
     * @throws JobSpecException for a malformed jobs file
     * @throws SlurmException for a line Slurm cannot run, when no job can be submitted (sbatch cannot be run,
     *     slurmctld cannot be reached, the run's partition or account is refused), or when {@code squeue} keeps
     *     failing; sbatch refusing one job ends only that job, infeasible
     * @throws io.gpusched.model.LogDirInUseException when another scheduler (local or Slurm) uses the log directory;
     *     nothing is submitted
     */
    public RunSummary run() {
        return run(s -> { });
    }

    /**
     * As {@link #run()}, telling {@code built} the scheduler that runs the file before it starts, so that
     * a caller can serve it (the client verbs on the run's socket, as a local run does).
     *
     * @param built called once, on this thread, with the scheduler about to run
     * @return the outcomes, this run's and the journal's earlier ones
     */
    public RunSummary run(Consumer<Scheduler> built) {
        List<JobSpec> specs = new ArrayList<>();
        for (JobSpec line : JobsFileParser.parse(jobsFile)) {
            specs.add(rules.apply(line).spec());
        }
        check(specs);
        if (logDir.toString().indexOf('\\') >= 0) {
            // sbatch --output drops a backslash (and with it every %-pattern): Slurm's own output would go elsewhere.
            throw new SlurmException("the log directory " + logDir + " has a backslash in its path, which sbatch's"
                    + " --output cannot name (Slurm drops it); give --log-dir a directory without one");
        }
        // The engine makes the log directory (private to a root submitter, as a local run's); the driver
        // makes each attempt's directory under slurm/ as it submits.
        // Events from the engine's thread and warnings from the poller's reach the caller one at a time.
        Object said = new Object();
        Consumer<SchedulerEvent> serial = e -> {
            synchronized (said) {
                events.accept(e);
            }
        };
        Consumer<String> note = n -> {
            synchronized (said) {
                notes.accept(n);
            }
        };
        AtomicReference<SlurmException> fatal = new AtomicReference<>();
        SlurmDriver driver = new SlurmDriver(logDir, options, commands, wrapper, source(), note, serial, e -> {
            if (fatal.compareAndSet(null, e)) {
                // Not on the engine's thread, which may be the caller: the stop waits for the loop.
                Thread t = new Thread(this::stop, "gpusched-slurm-stop");
                t.setDaemon(true);
                t.start();
            }
        }, options.fresh() ? SlurmDriver.Before.NOTHING : before(logDir.resolve("journal.jsonl")));
        Scheduler s = Scheduler.builder()
                .backend(new NoGpusHere(driver.describe()))
                .options(SchedulerOptions.defaults().withPoll(options.poll()).withOomRetries(options.oomRetries())
                        .withTolerance(options.tolerance()))
                .logDir(logDir)
                .fresh(options.fresh())
                .jobsFile(jobsFile)
                .requirements(rules)
                .cluster(driver)
                .listener(serial)
                .build();
        scheduler = s;
        built.accept(s);
        Thread poller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    driver.poll();
                } catch (RuntimeException e) {
                    if (Thread.currentThread().isInterrupted()) {
                        return; // the run ended while a Slurm command ran
                    }
                    // Nothing else follows the jobs: the run stops (they keep running in Slurm) and says why.
                    driver.fail(new SlurmException("following the Slurm jobs failed: " + e.getMessage()));
                    return;
                }
                try {
                    Thread.sleep(Math.max(1, options.poll().toMillis()));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "gpusched-slurm-poll");
        poller.setDaemon(true);
        RunSummary summary;
        try {
            if (stopRequested) {
                s.closeLeavingJobsRunning();
            }
            poller.start();
            summary = s.run();
        } finally {
            poller.interrupt();
            try {
                poller.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (fatal.get() != null) {
            throw fatal.get();
        }
        return summary;
    }

    /** What the journal says before this run starts, read without writing it (the run's engine then locks it). */
    private static SlurmDriver.Before before(Path journal) {
        if (!Files.isRegularFile(journal)) {
            return SlurmDriver.Before.NOTHING;
        }
        JournalState state = new JournalState();
        try {
            for (JournalEntry e : JournalEntries.read(journal).entries()) {
                state.apply(e.event());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + journal + ": " + e.getMessage(), e);
        }
        Set<String> known = new HashSet<>();
        Map<String, Long> inFlight = new HashMap<>();
        Map<String, Integer> attempt = new HashMap<>();
        for (Map.Entry<String, JobRecord> r : state.records().entrySet()) {
            if (r.getValue().no().isPresent()) {
                known.add(r.getKey());
            }
            state.slurmJob(r.getKey()).ifPresent(id -> {
                inFlight.put(r.getKey(), id);
                attempt.put(r.getKey(), r.getValue().attempts() + 1);
            });
        }
        return new SlurmDriver.Before(known, inFlight, attempt);
    }

    /** Failed {@code squeue} calls in a row that end a run. */
    static final int MAX_QUEUE_FAILURES = 10;

    /** The file in an attempt's directory holding its Slurm job name's token. */
    static final String TOKEN = "submit.token";

    /** The engine's GPU backend on the submitting side: none of Slurm's GPUs is seen from here. */
    private record NoGpusHere(String describe) implements GpuBackend {
        @Override
        public GpuSnapshot snapshot() {
            return new GpuSnapshot(List.of(), List.of());
        }

        @Override
        public void close() {
        }
    }
}
