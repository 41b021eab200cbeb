package io.gpusched.cli;

import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.DidYouMean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parsed command line of {@code gpusched JOBS_FILE [options]}, or of {@code gpusched serve [options]}
 * ({@code serve}: a jobs file only through {@code --jobs}, {@code --socket} where to listen, always watching).
 *
 * <p>Why one long file: every option of a run is parsed and checked in one loop, so a new option's
 * clashes with the others (and its one-line errors) are written where the others are.
 */
record CliArgs(Optional<Path> jobsFile, SchedulerOptions options, boolean fresh, Path logDir, Optional<Integer> sim,
               Optional<String> backend, Optional<Path> nvmlLibrary, boolean help, boolean version,
               Optional<String> events, boolean serve, Optional<Path> socket, Optional<String> onFinish,
               Optional<String> adminGroup, Optional<io.gpusched.dashboard.DashboardAddress> dashboard,
               Optional<String> simMib, Optional<Path> requirements, Optional<Path> metricsTokenFile,
               io.gpusched.service.ServiceServer.Limits limits,
               int maxQueuedPerUser, boolean stopJobsOnExit, ServeJobRules jobRules) {

    /** Where {@code gpusched serve} run by root keeps its journal without {@code --log-dir} (made 0700). */
    static final Path ROOT_STATE_DIR = Path.of("/var/lib/gpusched");

    static final String HELP = String.join("\n",
            "usage: gpusched JOBS_FILE [options]",
            "       gpusched status [--log-dir DIR] [--json]   (see gpusched status --help)",
            "       gpusched stats [--since 7d] [--user U] [--json] [--plot FILE.svg] [--log-dir DIR]   (see",
            "           gpusched stats --help): jobs, GPU-hours, waits, utilisation, declarations, from the journal",
            "       gpusched help | version                    (to run a jobs file named help: ./help)",
            "       gpusched simulate JOBS_FILE [--gpus-spec 4x80G] [options]   (see gpusched simulate --help):",
            "           replays the placement over JOBS_FILE on a pretend clock, runs nothing, prints the makespan",
            "       gpusched serve [--socket PATH] [--jobs FILE] [--admin-group G] [--config FILE] [options]: a",
            "           daemon on a UNIX socket, for this user; run by root, for every user (jobs run as their",
            "           submitters). --config: options as key = value lines, the command line winning [as root",
            "           /etc/gpusched/gpusched.conf, else ~/.config/gpusched/gpusched.conf, if there]",
            "       gpusched submit|queue|cancel|logs|attach|pause|resume|dashboard|show|drain ...   talk to it (see",
            "           gpusched submit --help)",
            "       gpusched top                               watch it live (see gpusched top --help)",
            "       gpusched doctor [--sim]                    check this machine for serve (see gpusched doctor --help)",
            "       gpusched convert --from gpu_scheduler FILE   another tool's jobs file as ours, on stdout",
            "",
            "Runs the shell commands in JOBS_FILE on this machine's GPUs, each placed where its declared",
            "VRAM fits, in its own session with CUDA_VISIBLE_DEVICES set. The file is re-read every round.",
            "",
            "options (defaults in brackets):",
            "  --gpus 0,1,3           only these GPU indices [all]",
            "  --max-util PERCENT     a GPU busier than this (its mean utilisation over the last 30 s) takes no",
            "                         new job; GPUs without a utilisation reading are never held back [off]",
            "  --idle-threshold MIB   MiB below which a GPU counts as idle for undeclared jobs [200]",
            "  --margin MIB           MiB of safety margin added to every declaration [512]",
            "  --tolerance F          band before flagging over/under-declaration [0.10]",
            "  --spike-buffer F       buffer over observed VRAM peaks of fluctuating processes [0.10]",
            "  --poll S               seconds between scheduling rounds [5]; exits dispatch at once",
            "  --sample S             seconds between VRAM samples while jobs run [0.25]",
            "  --kill-grace S         seconds between SIGTERM and SIGKILL on timeout/cancel [10]",
            "  --stop-jobs-on-exit    serve: Ctrl-C or SIGTERM stops the running jobs too (SIGTERM, the grace,",
            "                         SIGKILL; they run again on restart) [off: they keep running, and the",
            "                         next gpusched serve on the same --log-dir takes them up]",
            "  --backend-timeout S    seconds to wait for one GPU query before it counts as failed [10]",
            "  --requirements FILE    requirement rules (JSON): what a command implies (vram, gpus, timeout,",
            "                         retries) when its line does not say; re-read live [off]",
            "  --auto-vram            every line without vram= learns it, as [vram=auto] does: the latest",
            "                         peak of the same command (else of its rule) + the spike buffer, from the",
            "                         journal; with no history, its rule's figure, else it runs alone [off]",
            "  --exclusive            one scheduled job per GPU, even when declarations fit [off]",
            "  --watch                keep running after the queue drains; pick up appended lines [off]",
            "  --oom-retries N        default CUDA-OOM retries; [retries=N] on a line may raise it [0]",
            "  --fresh                remove the journal first: re-run everything [off]",
            "  --retry-failed         run again jobs that failed, timed out, were infeasible or OOM-failed",
            "                         in an earlier run (cancelled ones stay cancelled) [off]",
            "  --age-step D           a waiting job gains one priority level per D waited [15m]",
            "  --reserve-after D|never  reserve GPUs for the first job that cannot start once it has",
            "                         waited D; later jobs then use them only if sure to end first [30m]",
            "  --fair-share-half-life D  how fast an owner's recent GPU time is forgotten, when several",
            "                         owners have jobs waiting [4h]",
            "  --log-dir DIR          per-job logs, journal, status board [gpusched_logs; serve as root: /var/lib/gpusched]",
            "  --on-finish CMD        run sh -c CMD when a job ends, with GPUSCHED_JOB_NO, _STATUS, _EXIT_CODE,",
            "                         _PEAK_MIB, _COMMAND set; never waited for; output to LOG_DIR/on-finish.log",
            "  --visible-devices uuid|index  what CUDA_VISIBLE_DEVICES names [uuid when known]",
            "  -v, --verbose          log each job's VRAM as its peak grows [off]",
            "  --sim N                run on N simulated 24000 MiB GPUs (no hardware) [off]",
            "  --sim-mib SIZES        the simulated GPUs' memory: one size for all, or one per GPU, e.g. 24000,80G",
            "  --backend NAME         GPU backend by name (nvml, sim, or a plugin) [detect]",
            "  --executor slurm       run the jobs on Slurm (sbatch); gpusched --executor slurm --help for its options",
            "  --nvml-library PATH    load NVML from this file [libnvidia-ml.so.1 from the system]",
            "  --events FILE          also write every event as one JSON object per line to FILE",
            "                         ('-' = stdout, then the human log goes to stderr) [off]",
            "  --dashboard [HOST:]PORT  a read-only web dashboard with /metrics (Prometheus) and a JSON API",
            "                         at http://HOST:PORT/; HOST defaults to 127.0.0.1; port 0 takes a free one;",
            "                         only the socket's users read it, each with the URL gpusched dashboard",
            "                         prints (it carries their token) [off]",
            "  --dashboard-public     allow --dashboard on an address other machines reach (plain HTTP: the",
            "                         tokens and every job's command, user and paths cross the network)",
            "  --metrics-token-file FILE  /metrics also answers Authorization: Bearer with FILE's first line",
            "                         (a Prometheus scraper's secret; FILE mode 0600) [only users' tokens]",
            "  --max-connections N    serve: the most client connections at once (a root daemon never",
            "                         refuses root) [1024]",
            "  --max-connections-per-user N  serve as root: the most one user may hold open (an srun",
            "                         holds one until it ends) [64]",
            "  --max-queued-per-user N  serve: a user with N jobs not yet ended (pending, held, running) gets",
            "                         no more (queue_full) [200000]",
            "  --idle-timeout S       serve: close a connection that sends no whole request for S seconds",
            "                         (a waiting or running srun excepted) [60]",
            ServeJobRules.HELP,
            "  --version              print the version",
            "  -h, --help             print this help",
            "",
            "A job that ended in an earlier run (the journal in --log-dir says so) is not run again; the",
            "log says so once per job, and the summary, board and exit code count its earlier outcome.",
            "",
            "exit code, over the whole jobs file (earlier outcomes included): 0 if every job succeeded or",
            "was cancelled; else the largest failing job's exit code (at least 1), a timed-out job counting",
            "as 124; 2 for a bad command line or jobs file (or --gpus naming a GPU that is not there);",
            "130 when interrupted by Ctrl-C or SIGTERM (running jobs are journaled and run again on restart;",
            "serve leaves them running unless --stop-jobs-on-exit).",
            "",
            "WARN lines are yellow on a terminal; set NO_COLOR to turn colour off. GPUSCHED_CLASSPATH",
            "(read by bin/gpusched) adds plugin jars, e.g. a third-party backend for --backend NAME.");

    static CliArgs parse(String... argv) {
        return parse(false, argv);
    }

    /** @param serve whether these are {@code gpusched serve}'s options (argv without the word serve) */
    static CliArgs parse(boolean serve, String... argv) {
        Deque<String> args = new ArrayDeque<>(java.util.List.of(argv));
        SchedulerOptions o = SchedulerOptions.defaults().withWatch(serve);
        Optional<Path> socket = Optional.empty();
        Optional<String> onFinish = Optional.empty();
        Optional<String> adminGroup = Optional.empty();
        Optional<Path> file = Optional.empty();
        boolean fresh = false;
        boolean stopJobsOnExit = false;
        boolean help = false;
        boolean version = false;
        Path logDir = Path.of("gpusched_logs");
        boolean logDirGiven = false;
        Optional<Integer> sim = Optional.empty();
        Optional<String> simMib = Optional.empty();
        Optional<String> backend = Optional.empty();
        Optional<Path> nvml = Optional.empty();
        Optional<String> events = Optional.empty();
        Optional<String> dashboard = Optional.empty();
        Optional<Path> requirements = Optional.empty();
        Optional<Path> metricsTokenFile = Optional.empty();
        boolean dashboardPublic = false;
        io.gpusched.service.ServiceServer.Limits limits = io.gpusched.service.ServiceServer.Limits.DEFAULTS;
        int maxQueued = io.gpusched.Scheduler.DEFAULT_MAX_QUEUED_PER_USER;
        ServeJobRules jobRules = ServeJobRules.NONE;
        while (!args.isEmpty()) {
            String a = args.poll();
            String inline = null;
            if (a.startsWith("--") && a.contains("=")) {
                inline = a.substring(a.indexOf('=') + 1);
                a = a.substring(0, a.indexOf('='));
            }
            try {
                if (ServeJobRules.OPTIONS.contains(a)) {
                    String option = a;
                    String given = inline;
                    jobRules = jobRules.with(a, () -> value(option, given, args), serve);
                    continue;
                }
                switch (a) {
                    case "-h", "--help" -> help = true;
                    case "--version" -> version = true;
                    case "-v", "--verbose" -> o = o.withVerbose(true);
                    case "--exclusive" -> o = o.withExclusive(true);
                    case "--auto-vram" -> o = o.withPolicy(o.policy().withAutoVram(true));
                    case "--watch" -> o = o.withWatch(true);
                    case "--fresh" -> fresh = true;
                    case "--stop-jobs-on-exit" -> {
                        if (!serve) {
                            throw new UsageException("--stop-jobs-on-exit is an option of gpusched serve; a jobs-file run"
                                    + " always stops its jobs on Ctrl-C");
                        }
                        stopJobsOnExit = true;
                    }
                    case "--retry-failed" -> o = o.withRetryFailed(true);
                    case "--age-step" -> o = o.withPolicy(o.policy().withAgeStep(policyDuration(a, value(a, inline, args))));
                    case "--reserve-after" -> o = o.withPolicy(o.policy().withReserveAfter(
                            policyDuration(a, value(a, inline, args))));
                    case "--fair-share-half-life" -> o = o.withPolicy(o.policy().withFairShareHalfLife(
                            policyDuration(a, value(a, inline, args))));
                    case "--gpus" -> o = o.withAllowedGpus(gpus(value(a, inline, args)));
                    case "--max-util" -> {
                        long pct = integer(a, value(a, inline, args));
                        if (pct < 0 || pct > 100) {
                            throw new UsageException("--max-util must be a percentage from 0 to 100, got " + pct);
                        }
                        o = o.withPolicy(o.policy().withMaxUtilPercent((int) pct));
                    }
                    case "--idle-threshold" -> o = o.withIdleThresholdMib(integer(a, value(a, inline, args)));
                    case "--margin" -> o = o.withMarginMib(integer(a, value(a, inline, args)));
                    case "--tolerance" -> o = o.withTolerance(decimal(a, value(a, inline, args)));
                    case "--spike-buffer" -> o = o.withSpikeBuffer(decimal(a, value(a, inline, args)));
                    case "--poll" -> o = o.withPoll(seconds(a, value(a, inline, args)));
                    case "--sample" -> o = o.withSampleInterval(seconds(a, value(a, inline, args)));
                    case "--kill-grace" -> o = o.withKillGrace(seconds(a, value(a, inline, args)));
                    case "--backend-timeout" -> o = o.withBackendTimeout(seconds(a, value(a, inline, args)));
                    case "--oom-retries" -> o = o.withOomRetries((int) integer(a, value(a, inline, args)));
                    case "--log-dir" -> {
                        logDir = directory(a, value(a, inline, args));
                        logDirGiven = true;
                    }
                    case "--visible-devices" -> o = o.withVisibleDevices(visible(value(a, inline, args)));
                    case "--sim" -> {
                        long n = integer(a, value(a, inline, args));
                        if (n < 1 || n > 64) {
                            throw new UsageException("--sim must be 1 to 64 GPUs, got " + n);
                        }
                        sim = Optional.of((int) n);
                    }
                    case "--sim-mib" -> simMib = Optional.of(value(a, inline, args));
                    case "--backend" -> backend = Optional.of(value(a, inline, args));
                    case "--nvml-library" -> nvml = Optional.of(Path.of(value(a, inline, args)));
                    case "--requirements" -> requirements = Optional.of(Path.of(value(a, inline, args)));
                    case "--events" -> events = Optional.of(value(a, inline, args));
                    case "--on-finish" -> onFinish = Optional.of(value(a, inline, args));
                    case "--dashboard" -> dashboard = Optional.of(value(a, inline, args));
                    case "--dashboard-public" -> dashboardPublic = true;
                    case "--metrics-token-file" -> metricsTokenFile = Optional.of(Path.of(value(a, inline, args)));
                    case "--admin-group" -> {
                        if (!serve) {
                            throw new UsageException("--admin-group is an option of gpusched serve");
                        }
                        adminGroup = Optional.of(value(a, inline, args));
                    }
                    case "--max-connections", "--max-connections-per-user", "--idle-timeout" -> {
                        if (!serve) {
                            throw new UsageException(a + " is an option of gpusched serve");
                        }
                        limits = limits(limits, a, value(a, inline, args));
                    }
                    case "--max-queued-per-user" -> {
                        if (!serve) {
                            throw new UsageException("--max-queued-per-user is an option of gpusched serve");
                        }
                        long n = integer(a, value(a, inline, args));
                        if (n < 1 || n > Integer.MAX_VALUE) {
                            throw new UsageException("--max-queued-per-user must be a whole number of jobs from 1 to "
                                    + Integer.MAX_VALUE + ", got " + n);
                        }
                        maxQueued = (int) n;
                    }
                    case "--socket" -> {
                        if (!serve) {
                            throw new UsageException("--socket is an option of gpusched serve and the client verbs");
                        }
                        socket = Optional.of(Path.of(value(a, inline, args)));
                    }
                    case "--jobs" -> {
                        if (!serve) {
                            throw new UsageException("--jobs is an option of gpusched serve; a run takes the file as "
                                    + "its argument: gpusched JOBS_FILE");
                        }
                        file = Optional.of(Path.of(value(a, inline, args)));
                    }
                    default -> {
                        if (a.startsWith("-") && !a.equals("-")) {
                            throw new UsageException("unknown option " + a + didYouMean(a) + " (see gpusched --help)");
                        }
                        if (serve) {
                            throw new UsageException("serve takes no jobs file argument; to watch one too, use --jobs "
                                    + a + " (see gpusched serve --help)");
                        }
                        if (file.isPresent()) {
                            throw new UsageException("one jobs file only; got " + file.get() + " and " + a);
                        }
                        file = Optional.of(Path.of(a));
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
        if (simMib.isPresent() && sim.isEmpty()) {
            throw new UsageException("--sim-mib sizes simulated GPUs; give --sim N too");
        }
        if (sim.isPresent() && backend.isPresent() && !backend.get().equals("sim")) {
            throw new UsageException("--sim and --backend " + backend.get() + " contradict each other; give one");
        }
        if (metricsTokenFile.isPresent() && dashboard.isEmpty()) {
            throw new UsageException("--metrics-token-file opens the dashboard's /metrics; give --dashboard PORT too");
        }
        if (!help && !version && file.isEmpty() && !serve) {
            throw new UsageException("no jobs file given: gpusched JOBS_FILE [options] (see gpusched --help)");
        }
        // Root's daemon keeps every user's journal: in the system's state directory unless told otherwise.
        if (serve && !logDirGiven && "root".equals(System.getProperty("user.name"))) {
            logDir = ROOT_STATE_DIR;
        }
        return new CliArgs(file, o, fresh, logDir, sim, backend, nvml, help, version, events, serve, socket, onFinish,
                adminGroup, dashboard(dashboard, dashboardPublic), simMib, requirements, metricsTokenFile, limits,
                maxQueued, stopJobsOnExit, jobRules.checked());
    }

    /** {@code serve}'s limits with one of them set from its option. */
    private static io.gpusched.service.ServiceServer.Limits limits(io.gpusched.service.ServiceServer.Limits l,
                                                                   String option, String v) {
        if (option.equals("--idle-timeout")) {
            return new io.gpusched.service.ServiceServer.Limits(l.connections(), l.connectionsPerUser(), seconds(option, v));
        }
        long n = integer(option, v);
        if (n < 1 || n > 1_000_000) {
            throw new UsageException(option + " must be 1 to 1000000 connections, got " + v);
        }
        return option.equals("--max-connections")
                ? new io.gpusched.service.ServiceServer.Limits((int) n, l.connectionsPerUser(), l.idleTimeout())
                : new io.gpusched.service.ServiceServer.Limits(l.connections(), (int) n, l.idleTimeout());
    }

    /** {@code --dashboard}'s address, refused beyond loopback without {@code --dashboard-public}. */
    private static Optional<io.gpusched.dashboard.DashboardAddress> dashboard(Optional<String> text, boolean allowPublic) {
        if (text.isEmpty()) {
            if (allowPublic) {
                throw new UsageException("--dashboard-public goes with --dashboard HOST:PORT (see gpusched --help)");
            }
            return Optional.empty();
        }
        try {
            io.gpusched.dashboard.DashboardAddress address = io.gpusched.dashboard.DashboardAddress.parse(text.get());
            address.requireAllowed(allowPublic);
            return Optional.of(address);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * A suggestion among the options HELP documents (so none can be missed there), or "". Only the
     * option lines count: the usage lines name other verbs' options (simulate's --gpus-spec).
     */
    private static String didYouMean(String option) {
        Matcher documented = Pattern.compile("(?m)^  (?:-[a-z], )?--([a-z][a-z-]*)").matcher(HELP);
        Set<String> names = new LinkedHashSet<>();
        while (documented.find()) {
            names.add(documented.group(1));
        }
        return DidYouMean.suggest(option.replaceFirst("^-+", ""), names).map(o -> " — did you mean --" + o + "?").orElse("");
    }

    private static String value(String option, String inline, Deque<String> args) {
        if (inline != null) {
            return inline;
        }
        String v = args.poll();
        if (v == null) {
            throw new UsageException(option + " needs a value (see gpusched --help)");
        }
        return v;
    }

    /** An empty path would resolve the journal and runs/ against the current directory: refused. */
    private static Path directory(String option, String v) {
        if (v.isBlank()) {
            throw new UsageException(option + " needs a directory, got '" + v + "' (see gpusched --help)");
        }
        return Path.of(v);
    }

    /** Effectively never: a century, far past any run, and still safe to add to an instant in nanoseconds. */
    static final java.time.Duration NEVER = java.time.Duration.ofDays(36_500);

    /** A policy duration such as 15m, 2h or 0 (now); {@code never} for --reserve-after. */
    static java.time.Duration policyDuration(String option, String v) {
        String s = v.strip();
        if (s.equals("never") && option.equals("--reserve-after")) {
            return NEVER;
        }
        if (s.matches("0+(\\.0+)?[smhd]?")) {
            return java.time.Duration.ZERO;
        }
        return io.gpusched.jobs.Units.parseDuration(s).orElseThrow(() -> new UsageException(option
                + " needs a duration like 90s, 15m, 2h or 1d" + (option.equals("--reserve-after") ? ", or never" : "")
                + ", got '" + v + "'"));
    }

    private static long integer(String option, String v) {
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, got '" + v + "'");
        }
    }

    private static double decimal(String option, String v) {
        try {
            double d = Double.parseDouble(v.strip());
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number, got '" + v + "'");
        }
    }

    private static Duration seconds(String option, String v) {
        double s = decimal(option, v);
        if (s <= 0 || s > 86400) {
            throw new UsageException(option + " must be more than 0 and at most 86400 seconds, got " + v);
        }
        return Duration.ofNanos(Math.round(s * 1e9));
    }

    private static Set<Integer> gpus(String v) {
        Set<Integer> out = new TreeSet<>();
        for (String part : v.split(",")) {
            try {
                int i = Integer.parseInt(part.strip());
                if (i < 0) {
                    throw new NumberFormatException();
                }
                if (!out.add(i)) {
                    throw new UsageException("--gpus names gpu " + i + " twice: '" + v + "'");
                }
            } catch (NumberFormatException e) {
                throw new UsageException("--gpus needs GPU indices like 0,1,3, got '" + v + "'");
            }
        }
        return out;
    }

    private static SchedulerOptions.VisibleDevices visible(String v) {
        return switch (v) {
            case "uuid" -> SchedulerOptions.VisibleDevices.UUID;
            case "index" -> SchedulerOptions.VisibleDevices.INDEX;
            default -> throw new UsageException("--visible-devices must be uuid or index, got '" + v + "'");
        };
    }
}
