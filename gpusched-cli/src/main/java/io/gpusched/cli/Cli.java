package io.gpusched.cli;

import io.gpusched.model.GpuschedException;
import io.gpusched.journal.JournalException;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.dashboard.Dashboard;
import io.gpusched.dashboard.DashboardAccess;
import io.gpusched.dashboard.DashboardAddress;
import io.gpusched.dashboard.Metrics;
import io.gpusched.service.DashboardLinks;
import io.gpusched.service.ServiceServer;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The command line as a function from arguments to an exit code, with its output streams injected, so
 * tests run it in-process. {@link Main} is the only caller that exits the JVM.
 */
public final class Cli {
    /** Exit code for a bad command line or jobs file. */
    public static final int USAGE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Scheduler> onStart;
    private final Consumer<Runnable> onInterrupt;

    /**
     * @param out where log lines go
     * @param err where one-line errors go
     * @param onStart called with the scheduler before it runs (Main registers its Ctrl-C hook here)
     */
    public Cli(PrintStream out, PrintStream err, Consumer<Scheduler> onStart) {
        this(out, err, onStart, r -> { });
    }

    /**
     * @param out where log lines go
     * @param err where one-line errors go
     * @param onStart called with the scheduler before it runs (Main registers its Ctrl-C hook here)
     * @param onInterrupt called with what Ctrl-C (or SIGTERM) should do instead of ending the run, and with
     *     {@code null} when that no longer applies: a client following a job's log says it detached, and
     *     the job goes on ({@link Main} prints it and exits 0)
     */
    public Cli(PrintStream out, PrintStream err, Consumer<Scheduler> onStart, Consumer<Runnable> onInterrupt) {
        this.out = out;
        this.err = err;
        this.onStart = onStart;
        this.onInterrupt = onInterrupt;
    }

    /**
     * Runs gpusched.
     *
     * @param argv the command line
     * @return the exit code: 0 all ok, the largest failing job's code, 2 usage, 130 interrupted
     */
    public int run(String... argv) {
        if (argv.length == 0) {
            out.println(Verbs.listing());
            return USAGE;
        }
        if (argv.length == 1 && (argv[0].equals("-V") || argv[0].equals("--version"))) {
            out.println(versionLine());
            return 0;
        }
        if (argv[0].equals("slurm-wrap")) {
            // hidden: what each Slurm job of --executor slurm runs on its compute node
            return io.gpusched.slurm.SlurmWrap.run(java.util.List.of(argv).subList(1, argv.length), err);
        }
        if (SlurmCommand.wanted(argv)) {
            java.util.Optional<String[]> local;
            try {
                local = SlurmCommand.local(argv);
            } catch (UsageException e) {
                err.println("gpusched: " + e.getMessage());
                return USAGE;
            }
            if (local.isEmpty()) {
                return new SlurmCommand(out, err).run(argv);
            }
            argv = local.get();
        }
        if (argv.length > 0 && argv[0].equals("status")) {
            return new StatusCommand(out, err).run(java.util.Arrays.copyOfRange(argv, 1, argv.length));
        }
        if (argv.length > 0 && argv[0].equals("stats")) {
            return new StatsCommand(out, err).run(java.util.Arrays.copyOfRange(argv, 1, argv.length));
        }
        if (argv.length > 0 && "simulate".equals(argv[0])) {
            return SimulateCommand.run(argv, out, err);
        }
        if (argv.length > 0 && (argv[0].equals("help") || argv[0].equals("version"))) {
            return helpOrVersion(argv);
        }
        if (argv.length > 0 && argv[0].equals("convert")) {
            return ConvertCommand.run(argv, out, err);
        }
        if (argv.length > 0 && argv[0].equals("srun")) {
            return new SrunCommand(out, err).run(argv);
        }
        if (argv.length > 0 && argv[0].equals("doctor")) {
            return new DoctorCommand(out, err, System::getenv).run(argv);
        }
        if (argv.length > 0 && argv[0].equals("top")) {
            return new TopCommand(out, err, onInterrupt).run(argv);
        }
        if (argv.length > 0 && ClientCommand.VERBS.contains(argv[0])) {
            return new ClientCommand(out, err, onInterrupt).run(argv);
        }
        // A word that is no verb is a jobs file, unless it is a plain word naming no file: a mistyped verb.
        if (!argv[0].equals("serve") && Verbs.find(argv[0]).isEmpty() && Verbs.mistyped(argv[0])) {
            err.println("gpusched: " + Verbs.unknown(argv[0]));
            return USAGE;
        }
        boolean serve = argv.length > 0 && argv[0].equals("serve");
        CliArgs args;
        try {
            args = serve ? ServeConfig.parseServe(java.util.Arrays.copyOfRange(argv, 1, argv.length)) : CliArgs.parse(argv);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return USAGE;
        }
        if (args.help() || args.version()) {
            out.println(args.help() ? CliArgs.help(serve) : versionLine());
            return 0;
        }
        Optional<Path> jobsFile = args.jobsFile();
        Optional<DashboardAccess> dashboardAccess;
        try {
            if (jobsFile.isPresent()) {
                requireJobsFile(jobsFile.get());
                JobsFileParser.parse(jobsFile.get());
            }
            // A bad rules file is refused before any job starts, as a bad jobs file is.
            args.requirements().ifPresent(io.gpusched.jobs.RequirementsParser::read);
            dashboardAccess = args.dashboard().map(d -> dashboardAccess(serve, args));
        } catch (JobSpecException e) {
            printBadLines(e, err);
            return USAGE;
        } catch (UsageException | UncheckedIOException | io.gpusched.jobs.RequirementsParser.RequirementsException e) {
            err.println("gpusched: " + e.getMessage());
            return USAGE;
        }
        GpuBackend backend;
        try {
            backend = backend(args);
        } catch (GpuschedException e) {
            err.println("gpusched: " + e.getMessage());
            return USAGE;
        }
        JsonEventWriter events;
        try {
            events = EventsOption.open(args.events(), out);
        } catch (UsageException e) {
            backend.close();
            err.println("gpusched: " + e.getMessage());
            return USAGE;
        }
        PrintStream log = EventsOption.toStdout(args.events()) ? err : out;
        PrintStream logText = LocaleText.of(log);
        try (backend; EventsOption.Quiet closeEvents = EventsOption.closing(events)) {
            Scheduler.Builder builder = Scheduler.builder()
                    .backend(backend)
                    .options(args.options())
                    .logDir(args.logDir())
                    .fresh(args.fresh())
                    .maxQueuedPerUser(args.maxQueuedPerUser())
                    .maxQueuedSizePerUser(args.maxQueuedMibPerUser())
                    // A daemon's stop (systemctl stop or restart, an upgrade) leaves its users' jobs running
                    // for the next serve to take up; a jobs-file run is its user's, and Ctrl-C stops it all.
                    .leaveJobsRunningOnClose(serve && !args.stopJobsOnExit())
                    .listener(new LogRenderer(logText, args.options().tolerance(), Colour.enabled(log)));
            args.jobRules().applyTo(builder);
            if (closeEvents.w() != null) {
                builder.listener(closeEvents.w());
            }
            args.onFinish().ifPresent(cmd -> builder.listener(new FinishHook(cmd, args.logDir(), logText)));
            // Closed again by the try below; this earlier close is for Ctrl-C / SIGTERM. The JVM may halt
            // as soon as Scheduler.close() returns to Main's shutdown hook, before this thread gets to the
            // end of the try, and close() returns only after this last event. So the backend (the sim
            // backend's temporary directory) is released before any path out of the run can end the JVM.
            builder.listener(e -> {
                if (e instanceof SchedulerEvent.RunFinished) {
                    backend.close();
                }
            });
            args.requirements().ifPresent(builder::requirementsFile);
            if (jobsFile.isPresent()) {
                builder.jobsFile(jobsFile.get());
            } else {
                builder.jobs(java.util.List.of());
            }
            // A run answers the client verbs too, on a socket in its log directory, once it holds the
            // directory's lock (so a second run on it never touches the first's socket). Where the socket
            // cannot be made (a path too long for a UNIX socket), the run goes on without it and says so.
            java.util.concurrent.atomic.AtomicReference<Optional<ServiceServer>> runService =
                    new java.util.concurrent.atomic.AtomicReference<>(Optional.empty());
            // Started before the run, so its links are there when the run's socket opens.
            java.util.concurrent.atomic.AtomicReference<Optional<Dashboard>> dashboard =
                    new java.util.concurrent.atomic.AtomicReference<>(Optional.empty());
            Scheduler[] built = new Scheduler[1];
            Optional<Metrics> metrics = args.dashboard().map(d -> new Metrics(
                    () -> built[0] == null ? Optional.empty() : built[0].snapshot()));
            metrics.ifPresent(builder::listener);
            if (!serve) {
                builder.listener(e -> {
                    if (e instanceof SchedulerEvent.RunStarted) {
                        try {
                            runService.set(Optional.of(ServiceServer.start(built[0],
                                    args.logDir().resolve(ClientCommand.RUN_SOCKET), ServiceServer.Access.OWNER_ONLY,
                                    Optional.empty(), links(dashboard.get()), ServiceServer.Limits.DEFAULTS,
                                    Optional.of(new ServedQueueText()), Optional.of(new ServedStats()))));
                        } catch (GpuschedException x) {
                            log.println("gpusched: the client verbs cannot reach this run: " + x.getMessage());
                        }
                    } else if (e instanceof SchedulerEvent.RunFinished) {
                        runService.get().ifPresent(ServiceServer::close);
                    }
                });
            }
            // A daemon drained (gpusched drain) exits 0: it stopped as asked, its queue kept for the next.
            java.util.concurrent.atomic.AtomicBoolean drained = new java.util.concurrent.atomic.AtomicBoolean();
            builder.listener(e -> {
                if (e instanceof SchedulerEvent.Draining) {
                    drained.set(true);
                }
            });
            Scheduler scheduler = builder.build();
            built[0] = scheduler;
            if (args.dashboard().isPresent()) {
                Dashboard d = Dashboard.start(scheduler, args.dashboard().get(), metrics.orElseThrow(),
                        dashboardAccess.orElseThrow());
                dashboard.set(Optional.of(d));
                // Without a token: a daemon's log may be read by others (journald's adm group).
                log.println("dashboard on " + d.url() + " (read-only; /metrics, /api/queue, /api/jobs/N; your URL with its"
                        + " token: gpusched dashboard" + (serve ? "" : " --log-dir " + args.logDir()) + ")");
                if (!args.dashboard().get().loopback()) {
                    log.println(DashboardAddress.riskWarning(d.url()));
                }
            }
            onStart.accept(scheduler);
            try {
                int code = runOrServe(serve, scheduler, args, runService, links(dashboard.get()), log);
                return serve && drained.get() ? 0 : code;
            } finally {
                dashboard.get().ifPresent(Dashboard::close);
            }
        } catch (GpuschedException e) {
            // Tested with instanceof rather than caught by type, so --version and --help never load it.
            // Only opening the journal throws it out of run(), before any job started.
            err.println("gpusched: " + e.getMessage() + (e instanceof JournalException
                    ? " — no job was started; pick a writable directory with --log-dir" : ""));
            return USAGE;
        }
    }

    /**
     * Who reads the dashboard: whom the socket serves (every user of a root daemon, else this user alone),
     * and the scraper of {@code --metrics-token-file}.
     *
     * @throws UsageException with one line when the token file is unreadable, open to others or short
     */
    private static DashboardAccess dashboardAccess(boolean serve, CliArgs args) {
        DashboardAccess access = serve && "root".equals(System.getProperty("user.name")) ? DashboardAccess.everyUser()
                : DashboardAccess.ownerOnly(System.getProperty("user.name", "?"));
        try {
            return args.metricsTokenFile().map(f -> access.withMetricsToken(DashboardAccess.readMetricsToken(f)))
                    .orElse(access);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The socket's {@code dashboard} op: each caller's own URL. */
    private static Optional<DashboardLinks> links(Optional<Dashboard> dashboard) {
        return dashboard.map(d -> d::urlFor);
    }

    /** A jobs-file run (with its socket for the client verbs), or the daemon on its socket. */
    private static int runOrServe(boolean serve, Scheduler scheduler, CliArgs args,
                                  java.util.concurrent.atomic.AtomicReference<Optional<ServiceServer>> runService,
                                  Optional<DashboardLinks> links, PrintStream log) {
        if (!serve) {
            try {
                return scheduler.run().exitCode();
            } finally {
                runService.get().ifPresent(ServiceServer::close);
            }
        }
        Path socket = args.socket().orElseGet(ClientCommand::serveSocket);
        boolean root = "root".equals(System.getProperty("user.name"));
        try (ServiceServer service = ServiceServer.start(scheduler, socket,
                root ? ServiceServer.Access.EVERY_USER : ServiceServer.Access.OWNER_ONLY, args.adminGroup(), links,
                args.limits(), Optional.of(new ServedQueueText()), Optional.of(new ServedStats()))) {
            fileLimitWarning(args.limits()).ifPresent(log::println);
            // The version first: after an upgrade, the log says which one took the jobs up.
            log.println("gpusched " + version() + " serving " + (root ? "every user (jobs run as their submitters)"
                    : System.getProperty("user.name", "?")) + " on " + service.socket()
                    + " (gpusched submit/queue/cancel/pause/resume; " + (args.stopJobsOnExit()
                    ? "Ctrl-C or SIGTERM stops it and its running jobs, which run again on restart)"
                    : "Ctrl-C or SIGTERM stops it and leaves running jobs running; the next gpusched serve on "
                    + args.logDir() + " takes them up)"));
            return scheduler.run().exitCode();
        }
    }

    /**
     * A warning when {@code --max-connections} needs more open files than this process may have (each
     * connection is one; the JVM already raised its soft limit to the hard one): past the limit, new
     * connections wait in the kernel instead of being answered.
     */
    static Optional<String> fileLimitWarning(ServiceServer.Limits limits) {
        if (!(java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return Optional.empty();
        }
        // Room for the journal, logs, jobs' pipes and the JVM's own files besides the connections.
        long needed = limits.connections() + 256L;
        long max = os.getMaxFileDescriptorCount();
        return max >= needed ? Optional.empty() : Optional.of("gpusched: warning: --max-connections " + limits.connections()
                + " needs about " + needed + " open files, but this process may open " + max + "; raise the limit"
                + " (ulimit -n " + needed + ", or LimitNOFILE=" + needed + " in its systemd unit) or lower"
                + " --max-connections");
    }

    /**
     * {@code gpusched help} and {@code gpusched version}, the words people try before the flags. They
     * take nothing more: {@code gpusched help --sim 2} more likely meant a jobs file named help, which
     * {@code ./help} names.
     */
    private int helpOrVersion(String[] argv) {
        if (argv.length == 2 && (argv[1].equals("-h") || argv[1].equals("--help"))) {
            out.print(ClientOptions.usage(ClientOptions.base(argv[0], argv[0].equals("help") ? "Prints what gpusched"
                    + " --help prints: a jobs-file run's options (gpusched VERB --help: a verb's). To run a jobs file"
                    + " named help, write ./help." : "Prints what gpusched --version prints, on one line. To run a jobs"
                    + " file named version, write ./version.")));
            return 0;
        }
        if (argv.length > 1) {
            err.println("gpusched: " + argv[0] + " takes no arguments; to run a jobs file named " + argv[0] + ", write ./"
                    + argv[0]);
            return USAGE;
        }
        out.println(argv[0].equals("help") ? CliArgs.help(false) : versionLine());
        return 0;
    }

    private static GpuBackend backend(CliArgs args) {
        Map<String, String> opts = new HashMap<>();
        args.sim().ifPresent(n -> opts.put("gpus", String.valueOf(n)));
        args.simMib().ifPresent(m -> opts.put("mib", m));
        args.nvmlLibrary().ifPresent(p -> opts.put("library", p.toString()));
        BackendOptions options = new BackendOptions(opts);
        Optional<String> name = args.sim().isPresent() ? Optional.of("sim") : args.backend();
        return name.isPresent() ? GpuBackends.load(name.get(), options) : GpuBackends.detect(options);
    }

    /** Fails with a usage error a user can act on unless {@code file} is a regular file (or a link to one). */
    static void requireJobsFile(Path file) {
        if (file.toString().isEmpty()) {
            // Path.of("") is the working directory: it would be reported as a directory.
            throw new UsageException("the jobs file's name is empty (an unset variable?); give the path of a jobs file");
        }
        if (Files.isDirectory(file)) {
            throw new UsageException("jobs file " + file + " is a directory; give the jobs file inside it");
        }
        if (!Files.exists(file)) {
            throw new UsageException("jobs file " + file + " not found");
        }
        if (!Files.isRegularFile(file)) {
            // A FIFO or a device is read only once, and could be endless: the file is read again on every edit.
            throw new UsageException("jobs file " + file + " is not a regular file (a FIFO, a device or a socket);"
                    + " write the jobs to a file and give that");
        }
    }

    /** Each bad line of a jobs file on a line of its own, then how many more there were past the bound. */
    static void printBadLines(JobSpecException e, PrintStream err) {
        for (JobSpecException line : e.errors()) {
            err.println("gpusched: " + line.getMessage());
        }
        int more = e.badLines() - e.errors().size();
        if (more > 0) {
            err.println("gpusched: ... and " + more + " more bad line" + (more == 1 ? "" : "s"));
        }
    }

    /**
     * What {@code gpusched --version} prints, on one line so a script's {@code head -1} keeps it whole:
     * the version, the git revision and the date of the build, and the Java runtime it runs on.
     */
    static String versionLine() {
        io.gpusched.dashboard.BuildInfo b = io.gpusched.dashboard.BuildInfo.current();
        // A StringBuilder, not +: on Java 9 and later + links method handles at its first use, a cost
        // --version would pay for this one line (issue #27).
        return new StringBuilder("gpusched ").append(version()).append(" (revision ").append(b.revision())
                .append(", built ").append(io.gpusched.dashboard.BuildInfo.buildDate()).append("; Java ")
                .append(System.getProperty("java.runtime.version", System.getProperty("java.version", "?"))).append(", ")
                .append(System.getProperty("java.vendor", "?")).append(')').toString();
    }

    static String version() {
        String v = Cli.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
