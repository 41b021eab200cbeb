package io.gpusched.cli;

import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackendProvider;
import io.gpusched.model.RunSummary;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.slurm.CommandRunner;
import io.gpusched.slurm.SlurmException;
import io.gpusched.slurm.SlurmExecutor;
import io.gpusched.slurm.SlurmOptions;
import io.gpusched.slurm.SlurmWrap;
import io.gpusched.service.ServiceServer;
import io.gpusched.testkit.sim.SimulatedGpuBackendProvider;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code gpusched JOBS --executor slurm [...]}: the jobs file on Slurm ({@link SlurmExecutor}), with the local
 * run's log lines, status board and socket for the client verbs ({@code queue}, {@code top}, {@code cancel});
 * and the hidden verb {@code gpusched slurm-wrap} each Slurm job runs ({@link SlurmWrap}).
 * Takes only the options that mean something on Slurm, and refuses the others by name.
 */
final class SlurmCommand {
    static final String USAGE = String.join("\n",
            "usage: gpusched JOBS --executor slurm [--partition P] [--account A] [--shard-mib MiB] [--gpu-shards N]",
            "                     [--poll S] [--log-dir DIR] [--oom-retries N] [--tolerance F] [--fresh]",
            "                     [--requirements FILE] [--events FILE|-] [--backend NAME | --sim N [--sim-mib MiB]]",
            "  --shard-mib MiB   MiB one GPU shard stands for on the cluster [10240]",
            "  --gpu-shards N    shards per GPU in the cluster's gres.conf, 1 to 1000 [8]",
            "  --backend NAME    the GPU backend the wrapper samples inside each job [detect: nvml]",
            "  --sim N           simulated GPUs inside each job (tests and demos)");

    /** The names of the values of the options above that name something, for {@link OptionValues#emptyValue}. */
    private static final Map<String, String> LABELS = Map.of("--partition", "NAME", "--account", "NAME", "--log-dir", "DIR",
            "--requirements", "FILE", "--events", "FILE", "--backend", "NAME", "--sim-mib", "SIZES");

    /** The most shards per GPU {@code --gpu-shards} takes: as many as {@code --oom-retries}' 1000. */
    static final int MAX_GPU_SHARDS = 1000;

    private final PrintStream out;
    private final PrintStream err;

    SlurmCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** @return whether the command line asks for an executor ({@code --executor NAME} or {@code --executor=NAME}) */
    static boolean wanted(String... argv) {
        return Arrays.stream(argv).anyMatch(a -> a.equals("--executor") || a.startsWith("--executor="));
    }

    /**
     * @return {@code argv} without {@code --executor local}, for the local path; empty when another executor is named
     * @throws UsageException when {@code --executor} is given more than once ({@code --executor local --executor
     *     slurm} ran locally, the slurm unsaid)
     */
    static Optional<String[]> local(String... argv) {
        List<String> named = new java.util.ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--executor") && i + 1 < argv.length) {
                named.add(argv[++i]);
            } else if (argv[i].startsWith("--executor=")) {
                named.add(argv[i].substring("--executor=".length()));
            }
        }
        if (named.size() > 1) {
            throw new UsageException(OptionValues.givenTwice("--executor", named));
        }
        List<String> rest = new java.util.ArrayList<>();
        boolean local = false;
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--executor") && i + 1 < argv.length && argv[i + 1].equals("local")
                    || argv[i].equals("--executor=local")) {
                local = true;
                i += argv[i].equals("--executor") ? 1 : 0;
                continue;
            }
            rest.add(argv[i]);
        }
        return local ? Optional.of(rest.toArray(String[]::new)) : Optional.empty();
    }

    int run(String... argv) {
        Optional<Path> jobs = Optional.empty();
        Optional<String> executor = Optional.empty();
        SlurmOptions o = SlurmOptions.defaults();
        Path logDir = Path.of("gpusched_logs");
        Optional<String> backend = Optional.empty();
        Map<String, String> backendOptions = new LinkedHashMap<>();
        long shardMib = SlurmOptions.DEFAULT_SHARD_MIB;
        int gpuShards = SlurmOptions.DEFAULT_GPU_SHARDS;
        int retries = o.oomRetries();
        double tolerance = o.tolerance();
        io.gpusched.jobs.Requirements rules = io.gpusched.jobs.Requirements.NONE;
        Optional<String> eventsTo = Optional.empty();
        Map<String, String> given = new LinkedHashMap<>();
        try {
            for (int i = 0; i < argv.length; i++) {
                String a = argv[i];
                String opt = a.contains("=") && a.startsWith("--") ? a.substring(0, a.indexOf('=')) : a;
                boolean inline = !opt.equals(a);
                if (!a.startsWith("-")) {
                    if (jobs.isPresent()) {
                        throw new UsageException("one jobs file, got " + jobs.get() + " and " + a);
                    }
                    jobs = Optional.of(Path.of(a));
                    continue;
                }
                if (opt.equals("--fresh")) {
                    o = o.withFresh(true);
                    continue;
                }
                if (opt.equals("-h") || opt.equals("--help")) {
                    out.println(USAGE);
                    return 0;
                }
                String v;
                if (inline) {
                    v = a.substring(opt.length() + 1);
                } else if (i + 1 < argv.length) {
                    v = argv[++i];
                } else {
                    throw new UsageException(opt + " needs a value");
                }
                Optional<String> empty = OptionValues.emptyValue(opt, LABELS.getOrDefault(opt, ""), v);
                if (empty.isPresent()) {
                    throw new UsageException(empty.get());
                }
                // Once each, as a local run's options (OptionValues.givenTwice): a second value was taken unsaid.
                String before = given.putIfAbsent(opt, v);
                if (before != null) {
                    throw new UsageException(OptionValues.givenTwice(opt, List.of(before, v)));
                }
                switch (opt) {
                    case "--executor" -> executor = Optional.of(v);
                    case "--partition" -> o = o.withPartition(v);
                    case "--account" -> o = o.withAccount(v);
                    // Counts as a local run's are checked (CliArgs.count): never cast into an int unchecked.
                    case "--shard-mib" -> shardMib = CliArgs.count(opt, v, 1, Integer.MAX_VALUE);
                    case "--gpu-shards" -> gpuShards = CliArgs.count(opt, v, 1, MAX_GPU_SHARDS);
                    case "--poll" -> o = o.withPoll(CliArgs.seconds(opt, v));
                    case "--log-dir" -> logDir = Path.of(v);
                    case "--oom-retries" -> retries = CliArgs.oomRetries(opt, v);
                    case "--tolerance" -> {
                        tolerance = CliArgs.decimal(opt, v);
                        if (tolerance < 0 || tolerance >= 1) {
                            throw new UsageException("--tolerance must be in [0, 1), got " + v);
                        }
                    }
                    case "--backend" -> backend = Optional.of(v);
                    case "--sim" -> {
                        backend = Optional.of("sim");
                        backendOptions.put("gpus", String.valueOf(CliArgs.count(opt, v, 1, 64)));
                    }
                    case "--sim-mib" -> backendOptions.put("mib", v);
                    case "--events" -> eventsTo = Optional.of(v);
                    case "--requirements" -> rules = io.gpusched.jobs.RequirementsParser.read(Path.of(v));
                    default -> throw new UsageException(opt + " is not supported with --executor slurm (Slurm does that"
                            + " part); see gpusched --executor slurm --help");
                }
            }
            if (!executor.orElse("").equals("slurm")) {
                throw new UsageException("--executor is local or slurm, got '" + executor.orElse("") + "'");
            }
            if (jobs.isEmpty()) {
                throw new UsageException("--executor slurm needs a jobs file; " + USAGE.lines().findFirst().orElse(""));
            }
            if (!Files.isRegularFile(jobs.get())) {
                throw new UsageException("jobs file not found: " + jobs.get());
            }
            o = o.withShards(shardMib, gpuShards).withJudging(retries, tolerance);
            // As a local run (CliArgs, Cli.backend), before anything is submitted: --sim-mib without --sim was
            // dropped unsaid, --sim with --backend nvml took whichever came last, and sim options the backend
            // refuses reached every Slurm job, whose wrapper then ran it unmeasured.
            CliArgs.simulatedGpus(given.containsKey("--sim"), given.containsKey("--sim-mib"),
                    Optional.ofNullable(given.get("--backend")));
            if (backend.isPresent() && backend.get().equals(SimulatedGpuBackendProvider.NAME)) {
                // Its options mean the same on every node; another backend's can only be judged where it runs.
                GpuBackendProvider.Availability sim = new SimulatedGpuBackendProvider()
                        .availability(new BackendOptions(backendOptions));
                if (!sim.available()) {
                    throw new UsageException(sim.reason());
                }
            }
            if (backend.isPresent()) {
                o = o.withBackend(backend.get(), backendOptions);
            }
        } catch (UsageException | IllegalArgumentException | io.gpusched.jobs.RequirementsParser.RequirementsException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        io.gpusched.event.JsonEventWriter json;
        try {
            json = EventsOption.open(eventsTo, out);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        // As a local run: with --events -, the JSON stream has stdout and the log lines move to stderr.
        PrintStream human = EventsOption.toStdout(eventsTo) ? err : out;
        LogRenderer log = new LogRenderer(human, o.tolerance());
        // As a local run: the client verbs (queue, top, cancel) answer on a socket in the log directory once
        // the run holds it, and the socket goes when the run ends. Without one, the run goes on and says so.
        java.util.concurrent.atomic.AtomicReference<io.gpusched.Scheduler> built = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Optional<ServiceServer>> socket =
                new java.util.concurrent.atomic.AtomicReference<>(Optional.empty());
        Path runSocket = logDir.resolve(ClientCommand.RUN_SOCKET);
        java.util.function.Consumer<io.gpusched.event.SchedulerEvent> serve = e -> {
            if (e instanceof io.gpusched.event.SchedulerEvent.RunStarted && built.get() != null) {
                try {
                    socket.set(Optional.of(ServiceServer.start(built.get(), runSocket, ServiceServer.Access.OWNER_ONLY,
                            Optional.empty(), Optional.empty(), ServiceServer.Limits.DEFAULTS, Optional.of(new ServedQueueText()))));
                } catch (io.gpusched.model.GpuschedException x) {
                    human.println("gpusched: the client verbs cannot reach this run: " + x.getMessage());
                }
            } else if (e instanceof io.gpusched.event.SchedulerEvent.RunFinished) {
                socket.get().ifPresent(ServiceServer::close);
            }
        };
        java.util.function.Consumer<io.gpusched.event.SchedulerEvent> events = (json == null ? log : log.andThen(json))
                .andThen(serve);
        SlurmExecutor executorRun = new SlurmExecutor(jobs.get(), logDir, o, CommandRunner.system(),
                SlurmExecutor.defaultWrapper(), events, note -> {
                    human.println("[" + java.time.LocalTime.now().format(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss"))
                            + "] " + note);
                    human.flush();
                }, rules);
        try {
            RunSummary summary = executorRun.run(built::set);
            return summary.exitCode();
        } catch (JobSpecException e) {
            Cli.printBadLines(e, err);
            return Cli.USAGE;
        } catch (SlurmException | UncheckedIOException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        } catch (io.gpusched.model.GpuschedException e) {
            // The log directory: in use by another scheduler, or not writable. Nothing was submitted.
            err.println("gpusched: " + e.getMessage() + " — nothing was submitted to Slurm");
            return Cli.USAGE;
        } finally {
            socket.get().ifPresent(ServiceServer::close);
            EventsOption.closing(json).close();
        }
    }

}
