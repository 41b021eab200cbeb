package io.gpusched.cli;

import io.gpusched.options.SchedulerOptions;
import io.gpusched.service.ServiceServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * The parsed command line of {@code gpusched JOBS_FILE [options]}, or of {@code gpusched serve [options]}
 * ({@code serve}: a jobs file only through {@code --jobs}, {@code --socket} where to listen, always watching).
 *
 * <p>Both are declared once, as picocli specs ({@link #spec(boolean)}) made from the option tables below
 * ({@link #SHARED}, the options a run and serve share, and {@link #SERVE}, serve's own): each entry names
 * the option, its value, its help line and what its value does, so adding an option is one entry. The
 * parser ({@link ClientOptions#parse}), {@code --help} ({@link #help(boolean)}), the completions, the man
 * page and the configuration file's keys ({@link ServeConfig#keys()}) all read those specs.
 */
record CliArgs(Optional<Path> jobsFile, SchedulerOptions options, boolean fresh, Path logDir, Optional<Integer> sim,
               Optional<String> backend, Optional<Path> nvmlLibrary, boolean help, boolean version,
               Optional<String> events, boolean serve, Optional<Path> socket, Optional<String> onFinish,
               Optional<String> adminGroup, Optional<io.gpusched.dashboard.DashboardAddress> dashboard,
               Optional<String> simMib, Optional<Path> requirements, Optional<Path> metricsTokenFile,
               ServiceServer.Limits limits, int maxQueuedPerUser, long maxQueuedMibPerUser, boolean stopJobsOnExit,
               Optional<Path> config, ServeJobRules jobRules) {

    /** Where {@code gpusched serve} run by root keeps its journal without {@code --log-dir} (made 0700). */
    static final Path ROOT_STATE_DIR = Path.of("/var/lib/gpusched");

    /** What an option's value does to the command line read so far; throws {@link UsageException} (or {@link IllegalArgumentException}) for a bad value. */
    @FunctionalInterface
    private interface Apply {
        void to(Values v, String option, String value);
    }

    /**
     * One option: its names (the long one last), its value's name ({@code ""} for a flag, which takes none),
     * its help line (its default in brackets), and what it does.
     */
    private record Opt(List<String> names, String label, String help, Apply apply) {
    }

    private static Opt flag(String name, String help, Apply apply) {
        return new Opt(List.of(name), "", help, apply);
    }

    private static Opt valued(String name, String label, String help, Apply apply) {
        return new Opt(List.of(name), label, help, apply);
    }

    /** The options a jobs-file run and serve share, in the order {@code --help} lists them. */
    private static final List<Opt> SHARED = List.of(
            valued("--gpus", "0,1,3", "only these GPU indices [all]", (v, a, s) -> v.o = v.o.withAllowedGpus(gpus(s))),
            valued("--max-util", "PERCENT", "a GPU busier than this (its mean utilisation over the last 30 s) takes no new"
                    + " job; GPUs without a utilisation reading are never held back [off]", (v, a, s) -> {
                        long pct = integer(a, s);
                        if (pct < 0 || pct > 100) {
                            throw new UsageException("--max-util must be a percentage from 0 to 100, got " + pct);
                        }
                        v.o = v.o.withPolicy(v.o.policy().withMaxUtilPercent((int) pct));
                    }),
            valued("--idle-threshold", "MIB", "MiB below which a GPU counts as idle for undeclared jobs [200]",
                    (v, a, s) -> v.o = v.o.withIdleThresholdMib(integer(a, s))),
            valued("--margin", "MIB", "MiB of safety margin added to every declaration [512]",
                    (v, a, s) -> v.o = v.o.withMarginMib(integer(a, s))),
            valued("--tolerance", "F", "band before flagging over/under-declaration [0.10]",
                    (v, a, s) -> v.o = v.o.withTolerance(decimal(a, s))),
            valued("--spike-buffer", "F", "buffer over observed VRAM peaks of fluctuating processes [0.10]",
                    (v, a, s) -> v.o = v.o.withSpikeBuffer(decimal(a, s))),
            valued("--poll", "S", "seconds between scheduling rounds [5]; exits dispatch at once",
                    (v, a, s) -> v.o = v.o.withPoll(seconds(a, s))),
            valued("--sample", "S", "seconds between VRAM samples while jobs run [0.25]",
                    (v, a, s) -> v.o = v.o.withSampleInterval(seconds(a, s))),
            valued("--kill-grace", "S", "seconds between SIGTERM and SIGKILL on timeout/cancel [10]",
                    (v, a, s) -> v.o = v.o.withKillGrace(seconds(a, s))),
            valued("--backend-timeout", "S", "seconds to wait for one GPU query before it counts as failed [10]",
                    (v, a, s) -> v.o = v.o.withBackendTimeout(seconds(a, s))),
            valued("--requirements", "FILE", "requirement rules (JSON): what a command implies (vram, gpus, timeout,"
                    + " retries) when its line does not say; re-read live [off]",
                    (v, a, s) -> v.requirements = Optional.of(Path.of(s))),
            flag("--auto-vram", "every line without vram= learns it, as [vram=auto] does: the latest peak of the same"
                    + " command (else of its rule) + the spike buffer, from the journal; with no history, its rule's figure,"
                    + " else it runs alone [off]", (v, a, s) -> v.o = v.o.withPolicy(v.o.policy().withAutoVram(true))),
            flag("--exclusive", "one scheduled job per GPU, even when declarations fit [off]",
                    (v, a, s) -> v.o = v.o.withExclusive(true)),
            flag("--watch", "keep running after the queue drains; pick up appended lines [off; serve always watches]",
                    (v, a, s) -> v.o = v.o.withWatch(true)),
            valued("--oom-retries", "N", "default CUDA-OOM retries; [retries=N] on a line may raise it [0]",
                    (v, a, s) -> v.o = v.o.withOomRetries(oomRetries(a, s))),
            flag("--fresh", "remove the journal first: re-run everything [off]", (v, a, s) -> v.fresh = true),
            flag("--retry-failed", "run again jobs that failed, timed out, were infeasible or OOM-failed in an earlier"
                    + " run (cancelled ones stay cancelled) [off]", (v, a, s) -> v.o = v.o.withRetryFailed(true)),
            valued("--age-step", "D", "a waiting job gains one priority level per D waited [15m]",
                    (v, a, s) -> v.o = v.o.withPolicy(v.o.policy().withAgeStep(policyDuration(a, s)))),
            valued("--reserve-after", "D|never", "reserve GPUs for the first job that cannot start once it has waited"
                    + " D; later jobs then use them only if sure to end first [30m]",
                    (v, a, s) -> v.o = v.o.withPolicy(v.o.policy().withReserveAfter(policyDuration(a, s)))),
            valued("--fair-share-half-life", "D", "how fast an owner's recent GPU time is forgotten, when several owners"
                    + " have jobs waiting [4h]",
                    (v, a, s) -> v.o = v.o.withPolicy(v.o.policy().withFairShareHalfLife(policyDuration(a, s)))),
            valued("--log-dir", "DIR", "per-job logs, journal, status board [gpusched_logs; serve as root: /var/lib/gpusched]",
                    (v, a, s) -> {
                        v.logDir = Path.of(s);
                        v.logDirGiven = true;
                    }),
            valued("--on-finish", "CMD", "run sh -c CMD when a job ends, with GPUSCHED_JOB_NO, _STATUS, _EXIT_CODE,"
                    + " _PEAK_MIB, _COMMAND set; never waited for; output to LOG_DIR/on-finish.log",
                    (v, a, s) -> v.onFinish = Optional.of(s)),
            valued("--visible-devices", "uuid|index", "what CUDA_VISIBLE_DEVICES names [uuid when known]",
                    (v, a, s) -> v.o = v.o.withVisibleDevices(visible(s))),
            new Opt(List.of("-v", "--verbose"), "", "log each job's VRAM as its peak grows [off]",
                    (v, a, s) -> v.o = v.o.withVerbose(true)),
            valued("--sim", "N", "run on N simulated 24000 MiB GPUs (no hardware) [off]", (v, a, s) -> {
                long n = integer(a, s);
                if (n < 1 || n > 64) {
                    throw new UsageException("--sim must be 1 to 64 GPUs, got " + n);
                }
                v.sim = Optional.of((int) n);
            }),
            valued("--sim-mib", "SIZES", "the simulated GPUs' memory: one size for all, or one per GPU, e.g. 24000,80G",
                    (v, a, s) -> v.simMib = Optional.of(s)),
            valued("--backend", "NAME", "GPU backend by name (nvml, sim, or a plugin) [detect]",
                    (v, a, s) -> v.backend = Optional.of(s)),
            valued("--nvml-library", "PATH", "load NVML from this file [libnvidia-ml.so.1 from the system]",
                    (v, a, s) -> v.nvml = Optional.of(Path.of(s))),
            valued("--events", "FILE", "also write every event as one JSON object per line to FILE ('-' = stdout, then"
                    + " the human log goes to stderr) [off]", (v, a, s) -> v.events = Optional.of(s)),
            valued("--dashboard", "[HOST:]PORT", "a read-only web dashboard with /metrics (Prometheus) and a JSON API at"
                    + " http://HOST:PORT/; HOST defaults to 127.0.0.1; port 0 takes a free one; only the socket's users"
                    + " read it, each with the URL gpusched dashboard prints (it carries their token) [off]",
                    (v, a, s) -> v.dashboard = Optional.of(s)),
            flag("--dashboard-public", "allow --dashboard on an address other machines reach (plain HTTP: the tokens and"
                    + " every job's command, user and paths cross the network)", (v, a, s) -> v.dashboardPublic = true),
            valued("--metrics-token-file", "FILE", "/metrics also answers Authorization: Bearer with FILE's first line"
                    + " (a Prometheus scraper's secret; FILE mode 0600) [only users' tokens]",
                    (v, a, s) -> v.metricsTokenFile = Optional.of(Path.of(s))),
            flag("--version", "print the version", (v, a, s) -> v.version = true));

    /**
     * serve's own options, in the order {@code gpusched serve --help} lists them (before the shared ones).
     * A new serve option is one entry here, and one component of this record if it needs one.
     */
    private static final List<Opt> SERVE = List.of(
            valued("--socket", "PATH", "where to listen [GPUSCHED_SOCKET, else /run/gpusched/gpusched.sock as root, else"
                    + " this user's]", (v, a, s) -> v.socket = Optional.of(Path.of(s))),
            valued("--jobs", "FILE", "also watch this jobs file, as a run would [none: jobs come from the clients]",
                    (v, a, s) -> v.file = Optional.of(Path.of(s))),
            valued("--admin-group", "G", "members of the UNIX group G may cancel, pause and see every user's jobs, as"
                    + " root may [none]", (v, a, s) -> v.adminGroup = Optional.of(s)),
            valued("--config", "FILE", "read options from FILE first, key = value lines, the command line winning [as"
                    + " root " + ServeConfig.SYSTEM_FILE + ", else ~/.config/gpusched/gpusched.conf, if there;"
                    + " /dev/null: none]", (v, a, s) -> v.config = Optional.of(Path.of(s))),
            flag("--stop-jobs-on-exit", "Ctrl-C or SIGTERM stops the running jobs too (SIGTERM, the grace, SIGKILL; they"
                    + " run again on restart) [off: they keep running, and the next gpusched serve on the same --log-dir"
                    + " takes them up]", (v, a, s) -> v.stopJobsOnExit = true),
            valued("--max-connections", "N", "the most client connections at once (a root daemon never refuses root)"
                    + " [1024]", (v, a, s) -> v.limits = limits(v.limits, a, s)),
            valued("--max-connections-per-user", "N", "as root: the most one user may hold open (an srun holds one until"
                    + " it ends) [64]", (v, a, s) -> v.limits = limits(v.limits, a, s)),
            valued("--max-queued-per-user", "N", "a user with N jobs not yet ended (pending, held, running) gets no more"
                    + " (queue_full) [200000]", (v, a, s) -> {
                        long n = integer(a, s);
                        if (n < 1 || n > Integer.MAX_VALUE) {
                            throw new UsageException("--max-queued-per-user must be a whole number of jobs from 1 to "
                                    + Integer.MAX_VALUE + ", got " + n);
                        }
                        v.maxQueued = (int) n;
                    }),
            valued("--max-queued-size-per-user", "SIZE", "a user whose jobs not yet ended would hold more than SIZE"
                    + " (512M, 2G) of commands and environments, which the journal keeps until each ends, gets no more"
                    + " (queue_full) [1G]", (v, a, s) -> {
                        java.util.OptionalLong mib = io.gpusched.jobs.Units.parseMib(s.strip());
                        if (mib.isEmpty()) {
                            // Out of range (0, 9999999999G) or no size at all: the range is said either way.
                            throw new UsageException("--max-queued-size-per-user must be a size from 1M to "
                                    + io.gpusched.jobs.Units.MAX_MIB + "M such as 512M or 2G (a plain number is MiB),"
                                    + " got " + s);
                        }
                        v.maxQueuedMib = mib.getAsLong();
                    }),
            valued("--idle-timeout", "S", "close a connection that sends no whole request for S seconds (a waiting or"
                    + " running srun excepted) [60]", (v, a, s) -> v.limits = limits(v.limits, a, s)),
            flag("--dedup", "every submit is unique: one whose user has the same job (command, attributes, directory)"
                    + " queued, running or ended ok is not queued again, and submit names that job (srun only with its"
                    + " own --unique) [off]", (v, a, s) -> v.jobRules = v.jobRules.with(a, () -> s)),
            valued("--max-job-time", "D", "stop any job that has run D (90, 15m, 2h) and, by --on-max-job-time, queue it"
                    + " again at the end or fail it; a job's own smaller timeout= wins; srun jobs are failed, not"
                    + " requeued [off]", (v, a, s) -> v.jobRules = v.jobRules.with(a, () -> s)),
            valued("--on-max-job-time", "requeue|fail", "what --max-job-time does: requeue (mgpu's context switch: to"
                    + " the end of the queue, its attempt not counted) or fail (ends timeout) [requeue]",
                    (v, a, s) -> v.jobRules = v.jobRules.with(a, () -> s)));

    /** A run's own: read before the run's options ({@link SlurmCommand}); listed so that help and completion show it. */
    private static final Opt EXECUTOR = valued("--executor", "slurm", "run the jobs on Slurm (sbatch); gpusched"
            + " --executor slurm --help for its options", (v, a, s) -> {
                // Cli hands --executor to SlurmCommand before a run's options are read; never here from there.
            });

    /** The command line read so far: what the options set, before the checks between them. */
    private static final class Values {
        SchedulerOptions o;
        Optional<Path> file = Optional.empty();
        boolean fresh;
        Path logDir = Path.of("gpusched_logs");
        boolean logDirGiven;
        Optional<Integer> sim = Optional.empty();
        Optional<String> simMib = Optional.empty();
        Optional<String> backend = Optional.empty();
        Optional<Path> nvml = Optional.empty();
        Optional<String> events = Optional.empty();
        Optional<Path> socket = Optional.empty();
        Optional<String> onFinish = Optional.empty();
        Optional<String> adminGroup = Optional.empty();
        Optional<String> dashboard = Optional.empty();
        boolean dashboardPublic;
        Optional<Path> requirements = Optional.empty();
        Optional<Path> metricsTokenFile = Optional.empty();
        ServiceServer.Limits limits = ServiceServer.Limits.DEFAULTS;
        int maxQueued = io.gpusched.Scheduler.DEFAULT_MAX_QUEUED_PER_USER;
        long maxQueuedMib = io.gpusched.Scheduler.DEFAULT_MAX_QUEUED_MIB_PER_USER;
        boolean stopJobsOnExit;
        boolean version;
        Optional<Path> config = Optional.empty();
        ServeJobRules jobRules = ServeJobRules.NONE;

        Values(boolean serve) {
            o = SchedulerOptions.defaults().withWatch(serve);
        }
    }

    /** What a run's {@code --help} says before its options. */
    private static final String RUN_ABOUT = "Runs the shell commands in JOBS_FILE on this machine's GPUs, each placed"
            + " where its declared VRAM fits, in its own session with CUDA_VISIBLE_DEVICES set. The file is re-read"
            + " every round.";
    /** What a run's {@code --help} says after its options and example. */
    private static final List<String> RUN_NOTES = List.of(
            "A job that ended in an earlier run (the journal in --log-dir says so) is not run again; the log says so"
                    + " once per job, and the summary, board and exit code count its earlier outcome.",
            "exit code, over the whole jobs file (earlier outcomes included): 0 if every job succeeded or was"
                    + " cancelled; else the largest failing job's exit code (at least 1), a timed-out job counting as 124;"
                    + " 2 for a bad command line or jobs file (or --gpus naming a GPU that is not there); 130 when"
                    + " interrupted by Ctrl-C or SIGTERM (running jobs are journaled and run again on restart).",
            "WARN lines are yellow on a terminal; set NO_COLOR to turn colour off. GPUSCHED_CLASSPATH (read by"
                    + " bin/gpusched) adds plugin jars, e.g. a third-party backend for --backend NAME.");
    private static final String SERVE_ABOUT = "A daemon on a UNIX socket: run by root, for every user of this machine"
            + " (jobs run as their submitters); else for this user alone. The client verbs (gpusched submit, srun,"
            + " queue, cancel, ...) talk to it; gpusched doctor checks the machine for it. It takes a jobs-file run's"
            + " options, and always watches.";
    private static final List<String> SERVE_NOTES = List.of(
            "exit code: 0 after gpusched drain; 2 for a bad command line or configuration file; 130 when stopped by"
                    + " Ctrl-C or SIGTERM (running jobs keep running for the next gpusched serve on the same --log-dir,"
                    + " unless --stop-jobs-on-exit).");

    /**
     * @param serve whether serve's spec ({@code gpusched serve}) or a run's ({@code gpusched JOBS_FILE})
     * @return its picocli spec: every option, each with its entry ({@link Opt}) as its user object
     */
    static CommandSpec spec(boolean serve) {
        CommandSpec s = CommandSpec.create().name(serve ? "gpusched serve" : "gpusched");
        List<Opt> all = new ArrayList<>();
        if (serve) {
            all.addAll(SERVE);
        }
        all.addAll(SHARED);
        if (!serve) {
            all.add(all.size() - 1, EXECUTOR);
        }
        for (Opt o : all) {
            OptionSpec.Builder b = OptionSpec.builder(o.names().toArray(String[]::new)).userObject(o)
                    .description(o.help().replace("%", "%%"));
            s.addOption(o.label().isEmpty() ? b.arity("0").type(boolean.class).build()
                    : b.arity("1").type(String.class).paramLabel(o.label()).build());
        }
        s.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("print this help").build());
        if (!serve) {
            s.addPositional(PositionalParamSpec.builder().arity("0..1").type(String.class).paramLabel("JOBS_FILE")
                    .description("the jobs file: one shell command a line (docs/jobs-file.md)").build());
        }
        return s;
    }

    /**
     * The {@code --help} of a run or of serve ({@code gpusched help} prints a run's), from its spec: usage, what it does, its options (two spaces, the
     * option and its value's name, its help from column 25), an example, and notes. The man page, the example
     * configuration file and the completions read it or the spec.
     */
    static String help(boolean serve) {
        List<String> lines = new ArrayList<>();
        if (serve) {
            lines.add("Usage: gpusched serve [--socket PATH] [--jobs FILE] [--admin-group G] [--config FILE] [options]");
        } else {
            lines.add("Usage: gpusched JOBS_FILE [options]");
            // each verb's line from its spec: its positional argument's name
            Map<String, CommandSpec> specs = DistDocs.specs();
            for (Verbs.Verb v : Verbs.ALL) {
                String label = Optional.ofNullable(specs.get(v.name())).flatMap(sp -> sp.positionalParameters().stream()
                        .findFirst()).map(PositionalParamSpec::paramLabel).filter(l -> !l.isEmpty() && !l.equals("PARAM"))
                        .map(l -> " " + l).orElse("");
                String synopsis = "       gpusched " + v.name() + label + " [options]";
                lines.add(synopsis + " ".repeat(Math.max(2, 46 - synopsis.length())) + "(see gpusched " + v.name() + " --help)");
            }
        }
        lines.add("");
        lines.addAll(ClientOptions.wrap(serve ? SERVE_ABOUT : RUN_ABOUT, 99));
        lines.add("");
        lines.add("options (defaults in brackets):");
        for (OptionSpec o : spec(serve).options()) {
            String name = "  " + String.join(", ", o.names()) + (o.arity().max() == 0 ? "" : " " + o.paramLabel());
            int column = Math.max(25, name.length() + 2);
            List<String> help = wrapOption(String.join(" ", o.description()).replace("%%", "%"), column);
            lines.add(name + " ".repeat(column - name.length()) + help.get(0));
            help.subList(1, help.size()).forEach(l -> lines.add(" ".repeat(25) + l));
        }
        lines.add("");
        lines.add("Example:");
        lines.add("  " + (serve ? Verbs.find("serve").orElseThrow().example() : RUN_EXAMPLE));
        for (String note : serve ? SERVE_NOTES : RUN_NOTES) {
            lines.add("");
            lines.addAll(ClientOptions.wrap(note, 99));
        }
        if (serve) {
            lines.add("");
            lines.add("Configuration file:");
            lines.addAll(List.of(ServeConfig.HELP.split("\n")));
        }
        return String.join("\n", lines);
    }

    /**
     * An option's help as lines that end by column 100, the first starting at {@code column}, the others at
     * 25; a short [default] is never broken between lines.
     */
    private static List<String> wrapOption(String help, int column) {
        StringBuilder b = new StringBuilder(help.length());
        int open = -1;
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            if (c == '[') {
                open = i;
            } else if (c == ']') {
                open = -1;
            }
            int close = open < 0 ? -1 : help.indexOf(']', open);
            b.append(c == ' ' && close >= 0 && close - open <= 50 ? '\u00a0' : c);
        }
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String w : b.toString().split(" ")) {
            int width = 100 - (lines.isEmpty() ? column : 25);
            if (line.length() > 0 && line.length() + 1 + w.length() > width) {
                lines.add(line.toString().replace('\u00a0', ' '));
                line = new StringBuilder();
            }
            line.append(line.length() > 0 ? " " : "").append(w);
        }
        lines.add(line.toString().replace('\u00a0', ' '));
        return lines;
    }

    /** A run's example. */
    static final String RUN_EXAMPLE = "gpusched examples/demo.txt --sim 2 --fresh -v";

    static CliArgs parse(String... argv) {
        return parse(false, argv);
    }

    /**
     * @param serve whether these are {@code gpusched serve}'s options (argv without the word serve)
     * @param argv the words after {@code gpusched} (a run) or after {@code gpusched serve}
     * @throws UsageException with one line saying what is wrong and how to fix it
     */
    static CliArgs parse(boolean serve, String... argv) {
        Words r = read(serve, argv);
        Values v = new Values(serve);
        try {
            for (Given g : r.options()) {
                // Read without picocli, a plain command line is checked here as ClientOptions.parse checks the rest.
                Optional<String> empty = OptionValues.emptyValue(g.name(), g.opt().label(), g.value());
                if (empty.isPresent()) {
                    throw new UsageException(empty.get());
                }
                g.opt().apply().to(v, g.name(), g.value());
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        boolean help = r.help();
        if (r.jobsFile().isPresent()) {
            v.file = Optional.of(Path.of(r.jobsFile().get()));
        }
        if (help || v.version) {
            return values(serve, v, help, Optional.empty());
        }
        simulatedGpus(v.sim.isPresent(), v.simMib.isPresent(), v.backend);
        if (v.metricsTokenFile.isPresent() && v.dashboard.isEmpty()) {
            throw new UsageException("--metrics-token-file opens the dashboard's /metrics; give --dashboard PORT too");
        }
        if (v.file.isEmpty() && !serve) {
            throw new UsageException("no jobs file given: gpusched JOBS_FILE [options] (see gpusched --help)");
        }
        // Root's daemon keeps every user's journal: in the system's state directory unless told otherwise.
        if (serve && !v.logDirGiven && "root".equals(System.getProperty("user.name"))) {
            v.logDir = ROOT_STATE_DIR;
        }
        return values(serve, v, false, dashboard(v.dashboard, v.dashboardPublic));
    }

    /** One option as given: its entry, its longest name, its value ({@code ""} for a flag). */
    record Given(Opt opt, String name, String value) {
    }

    /**
     * A command line read, before any value is checked: the options in the order given, the jobs file
     * (a run's one positional word), whether {@code --help} was asked for.
     */
    record Words(List<Given> options, Optional<String> jobsFile, boolean help) {
        /** @return the value of the option of that longest name (given once: {@link #read} refuses a repeat) */
        Optional<String> value(String name) {
            Optional<String> found = Optional.empty();
            for (Given g : options) {
                if (g.name().equals(name)) {
                    found = Optional.of(g.value());
                }
            }
            return found;
        }
    }

    /**
     * The words as the spec reads them, before any value is checked: what {@link ServeConfig} reads
     * {@code --config} and {@code --help} from before it reads the file.
     *
     * <p>A plain command line ({@code gpusched jobs.txt --sim 2 --poll 0.5 -v}: each word one of the
     * table's names exactly, a value that starts with no dash, each option once, at most one jobs file,
     * no {@code --help}) is read straight from the tables; anything else by picocli with the spec, whose
     * reading of the plain case is the same. Why: building the spec and picocli's parser (its classes,
     * its type converters, which load java.sql and java.time by reflection) cost a jobs-file run's start
     * about 60 ms of CPU (issue #25), for a command line that needs none of it.
     *
     * @throws UsageException for an unknown option, a missing value, a stray word
     */
    static Words read(boolean serve, String... argv) {
        Optional<Words> plain = plain(serve, argv);
        if (plain.isPresent()) {
            return plain.get();
        }
        ParseResult r = ClientOptions.parse(spec(serve), serve ? "serve" : "", List.of(argv), false);
        List<Given> given = new ArrayList<>();
        for (OptionSpec o : r.matchedOptions()) {
            if (o.userObject() instanceof Opt opt) {
                given.add(new Given(opt, o.longestName(), o.arity().max() == 0 ? "" : o.getValue()));
            }
        }
        return new Words(given, r.hasMatchedPositional(0) ? Optional.of(r.<String>matchedPositionalValue(0, ""))
                : Optional.empty(), r.isUsageHelpRequested());
    }

    /**
     * serve's long options, as its spec lists them ({@link #spec(boolean)} with {@code true}, less
     * {@code --help}), each with its value's name (empty for a flag): read from the table, so that
     * {@link ServeConfig} reads a configuration file without building the spec.
     */
    static Map<String, Optional<String>> serveOptions() {
        Map<String, Optional<String>> out = new java.util.LinkedHashMap<>();
        for (List<Opt> table : List.of(SERVE, SHARED)) {
            for (Opt o : table) {
                out.put(longest(o), o.label().isEmpty() ? Optional.empty() : Optional.of(o.label()));
            }
        }
        return out;
    }

    /** The plain command line's reading ({@link #read}); empty where picocli is to read it. */
    private static Optional<Words> plain(boolean serve, String... argv) {
        List<Given> given = new ArrayList<>();
        Optional<String> file = Optional.empty();
        for (int i = 0; i < argv.length; i++) {
            String w = argv[i];
            if (!w.startsWith("-")) {
                if (serve || file.isPresent()) {
                    return Optional.empty();
                }
                file = Optional.of(w);
                continue;
            }
            Opt opt = find(serve, w);
            if (opt == null) {
                return Optional.empty();
            }
            String name = longest(opt);
            for (Given g : given) {
                if (g.opt() == opt) {
                    return Optional.empty();
                }
            }
            if (opt.label().isEmpty()) {
                given.add(new Given(opt, name, ""));
            } else if (i + 1 < argv.length && !argv[i + 1].startsWith("-")) {
                given.add(new Given(opt, name, argv[++i]));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(new Words(given, file, false));
    }

    /** The entry with that name among a run's or serve's options; null for none. */
    private static Opt find(boolean serve, String word) {
        for (List<Opt> table : serve ? List.of(SERVE, SHARED) : List.of(SHARED)) {
            for (Opt o : table) {
                if (o.names().contains(word)) {
                    return o;
                }
            }
        }
        return null;
    }

    /** The longest of an option's names, as picocli's {@code longestName()} says it. */
    private static String longest(Opt o) {
        String l = o.names().get(0);
        for (String n : o.names()) {
            if (n.length() > l.length()) {
                l = n;
            }
        }
        return l;
    }

    private static CliArgs values(boolean serve, Values v, boolean help,
                                  Optional<io.gpusched.dashboard.DashboardAddress> dashboard) {
        return new CliArgs(v.file, v.o, v.fresh, v.logDir, v.sim, v.backend, v.nvml, help, v.version,
                v.events, serve, v.socket, v.onFinish, v.adminGroup, dashboard, v.simMib, v.requirements,
                v.metricsTokenFile, v.limits, v.maxQueued, v.maxQueuedMib, v.stopJobsOnExit, v.config, v.jobRules.checked());
    }

    /** {@code serve}'s limits with one of them set from its option. */
    private static ServiceServer.Limits limits(ServiceServer.Limits l,
                                                                   String option, String v) {
        if (option.equals("--idle-timeout")) {
            return new ServiceServer.Limits(l.connections(), l.connectionsPerUser(), seconds(option, v));
        }
        long n = integer(option, v);
        if (n < 1 || n > 1_000_000) {
            throw new UsageException(option + " must be 1 to 1000000 connections, got " + v);
        }
        return option.equals("--max-connections")
                ? new ServiceServer.Limits((int) n, l.connectionsPerUser(), l.idleTimeout())
                : new ServiceServer.Limits(l.connections(), (int) n, l.idleTimeout());
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

    /** Effectively never: a century, far past any run, and still safe to add to an instant in nanoseconds. */
    static final java.time.Duration NEVER = java.time.Duration.ofDays(36_500);

    /**
     * A policy duration such as 15m, 2h or 0 (now); {@code never} for --reserve-after. {@code --age-step}
     * and {@code --fair-share-half-life} are at least a second (a step or half-life of 0 has no meaning:
     * the policy divides by it), said here in the option's words: the policy's own check printed the
     * value as {@code PT0S}.
     */
    static java.time.Duration policyDuration(String option, String v) {
        String s = v.strip();
        if (s.equals("never") && option.equals("--reserve-after")) {
            return NEVER;
        }
        boolean zeroAllowed = option.equals("--reserve-after");
        String never = zeroAllowed ? ", or never" : "";
        java.util.Optional<java.time.Duration> least = java.util.Optional.of(zeroAllowed ? java.time.Duration.ZERO
                : java.time.Duration.ofSeconds(1));
        java.time.Duration d = s.matches("0+(\\.0+)?[smhdSMHD]?") ? java.time.Duration.ZERO
                : io.gpusched.jobs.Units.parseDuration(s).orElseThrow(() -> io.gpusched.jobs.Units.isDurationForm(s)
                ? durationOutOfRange(option, v, least, never)
                : new UsageException(option + " needs a duration like 90s, 15m, 2h or 1d" + never + ", got '" + v + "'"));
        if (d.compareTo(least.get()) < 0) {
            throw durationOutOfRange(option, v, least, never);
        }
        return d;
    }

    /**
     * The one-line refusal of a duration option's value that is a duration but out of its range, naming the
     * option, the range and the value: {@link io.gpusched.jobs.Units#parseDuration} answers empty for
     * {@code 3651d} as for {@code soon}, and an error that said only "needs a duration like 2h" for
     * {@code 3651d} left the user to guess the bound.
     *
     * @param option the option as typed, e.g. {@code --age-step}
     * @param v its value as typed
     * @param least the smallest value allowed; empty when any value above 0 is
     * @param also what else the option takes, said after the range (", or never"), or ""
     * @return e.g. {@code --age-step must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d), got '3651d'}
     */
    static UsageException durationOutOfRange(String option, String v, java.util.Optional<java.time.Duration> least,
                                             String also) {
        String max = io.gpusched.jobs.Units.MAX_DURATION.toDays() + "d";
        String range = least.map(l -> "from " + io.gpusched.jobs.Units.formatDuration(l) + " to " + max)
                .orElse("more than 0 and at most " + max);
        return new UsageException(option + " must be " + range + " (a duration like 90s, 15m, 2h or 1d)" + also
                + ", got '" + v + "'");
    }

    /** As a line's {@code retries=}: 0 to 1000, never wrapped into an int (4294967296 was 0). */
    static int oomRetries(String option, String v) {
        return count(option, v, 0, 1000);
    }

    /**
     * A count option's value: a whole number in [{@code min}, {@code max}], checked as a long before it is
     * an int, so that 4294967297 is refused instead of wrapping to 1.
     *
     * @throws UsageException {@code OPTION must be a whole number from MIN to MAX, got V}
     */
    static int count(String option, String v, int min, int max) {
        long n = integer(option, v);
        if (n < min || n > max) {
            throw new UsageException(option + " must be a whole number from " + min + " to " + max + ", got " + v.strip());
        }
        return (int) n;
    }

    /**
     * A whole number, as typed (spaces around it are let be).
     *
     * @throws UsageException {@code OPTION needs a whole number, got 'V'}
     */
    static long integer(String option, String v) {
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, got '" + v + "'");
        }
    }

    /**
     * A finite decimal number, as typed (spaces around it are let be).
     *
     * @throws UsageException {@code OPTION needs a number, got 'V'}
     */
    static double decimal(String option, String v) {
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

    /**
     * The rules of {@code --sim}, {@code --sim-mib} and {@code --backend} together, as a local run, serve,
     * {@code --executor slurm} and doctor read them.
     *
     * @param sim whether {@code --sim} was given
     * @param simMib whether {@code --sim-mib} was given
     * @param backend {@code --backend}'s value, if given
     * @throws UsageException for {@code --sim-mib} without {@code --sim}, or {@code --sim} beside another backend
     */
    static void simulatedGpus(boolean sim, boolean simMib, Optional<String> backend) {
        if (simMib && !sim) {
            throw new UsageException("--sim-mib sizes simulated GPUs; give --sim N too");
        }
        if (sim && backend.isPresent() && !backend.get().equals("sim")) {
            throw new UsageException("--sim and --backend " + backend.get() + " contradict each other; give one");
        }
    }

    /**
     * A number of seconds in (0, 86400]: {@code --poll}, {@code --kill-grace} and the like, to the
     * nanosecond rounded up, so a positive value never becomes 0 (a {@code --kill-grace 1e-10} was no
     * grace at all, where {@code --kill-grace 0} is refused), as a line's {@code timeout=} rounds.
     */
    static Duration seconds(String option, String v) {
        double s = decimal(option, v);
        if (s <= 0 || s > 86400) {
            throw new UsageException(option + " must be more than 0 and at most 86400 seconds, got " + v);
        }
        return Duration.ofNanos((long) Math.ceil(s * 1e9));
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
