package io.gpusched.cli;

import io.gpusched.model.GpuschedException;
import io.gpusched.engine.preflight.Preflight;
import io.gpusched.journal.StateDirectory;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import io.gpusched.service.ServiceServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * {@code gpusched doctor}: checks what {@code gpusched serve} needs of this machine, as the user who runs
 * it (root for the lab's daemon), with the daemon's own rules (its backend detection, its state and
 * socket directory checks, its helpers), and changes nothing. One line per check; each problem with its
 * fix; exit 1 if any problem, 0 otherwise (warnings and notes included), 2 for a bad command line.
 */
final class DoctorCommand {
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("doctor", "Checks what gpusched serve needs here, as"
                + " this user (run it as root for the lab's daemon), with the daemon's own rules, changing nothing: the GPU"
                + " backend (NVIDIA driver and NVML), util-linux's setsid, tmux (for [tty] jobs), the helpers built into"
                + " the jar (gpusched-spawnd, gpusched-runas), the state directory's and the socket directory's owners and"
                + " modes, the configuration file, and whether a daemon answers on the socket. Prints one line per check"
                + " (ok, note, warning, problem), each problem with its fix. Exit 0 when nothing is a problem, 1 when"
                + " something is, 2 for a bad command line.");
        // A flag: serve's --sim N, typed here from habit, has its N taken off before the parse (withoutSimCount),
        // so no option of doctor's takes an optional value and every value reads as typed (ClientOptions.parse).
        s.addOption(ClientOptions.flag(new String[] {"--sim"}, "GPUs will be simulated (serve --sim N; an N after it"
                + " is let be): no GPU here is a note, not a problem"));
        s.addOption(ClientOptions.valued(new String[] {"--socket"}, "PATH", "the daemon's socket [as serve:"
                + " $GPUSCHED_SOCKET, root: /run/gpusched/gpusched.sock]"));
        s.addOption(ClientOptions.valued(new String[] {"--log-dir"}, "DIR", "the daemon's state directory [as serve: root:"
                + " /var/lib/gpusched, else gpusched_logs]"));
        s.addOption(ClientOptions.valued(new String[] {"--config"}, "FILE", "the configuration file [" + CONFIG + "]"));
        s.addOption(ClientOptions.valued(new String[] {"--backend"}, "NAME", "as serve's"));
        s.addOption(ClientOptions.valued(new String[] {"--nvml-library"}, "PATH", "as serve's"));
        return s;
    }

    /**
     * The words with serve's {@code --sim N} (or {@code --sim=N}) read as doctor's flag {@code --sim}: the N,
     * a whole number, is taken off. The walk skips the values of doctor's other options and stops at
     * {@code --}.
     *
     * @throws UsageException for a word after {@code --sim} that is neither a number nor an option
     */
    static List<String> withoutSimCount(List<String> args) {
        List<String> out = new java.util.ArrayList<>(args.size());
        picocli.CommandLine.Model.CommandSpec spec = spec();
        for (int i = 0; i < args.size(); i++) {
            String w = args.get(i);
            if (w.equals("--")) {
                out.addAll(args.subList(i, args.size()));
                break;
            }
            String n = "";
            if (w.startsWith("--sim=")) {
                n = w.substring("--sim=".length());
                w = "--sim";
            } else if (w.equals("--sim") && i + 1 < args.size() && !args.get(i + 1).startsWith("-")) {
                n = args.get(++i);
            }
            if (!n.isEmpty() && !n.matches("[0-9]+")) {
                throw new UsageException("doctor takes no argument '" + n + "' (see gpusched doctor --help)");
            }
            out.add(w);
            picocli.CommandLine.Model.OptionSpec o = spec.optionsMap().get(w);
            if (o != null && o.arity().min() > 0 && i + 1 < args.size()) {
                out.add(args.get(++i));
            }
        }
        return out;
    }

    /** Where the lab's daemon reads its configuration. */
    static final Path CONFIG = Path.of("/etc/gpusched/gpusched.conf");

    /** How bad a finding is. */
    enum Level {
        OK("ok"), NOTE("note"), WARNING("warning"), PROBLEM("problem");

        private final String word;

        Level(String word) {
            this.word = word;
        }
    }

    /**
     * One check's outcome.
     *
     * @param level how bad
     * @param check what was checked, e.g. {@code tmux}
     * @param text what was found, one line
     * @param fix what to do; empty for ok and notes, and where {@code text} already says it
     */
    record Finding(Level level, String check, String text, Optional<String> fix) {
        static Finding ok(String check, String text) {
            return new Finding(Level.OK, check, text, Optional.empty());
        }

        static Finding note(String check, String text) {
            return new Finding(Level.NOTE, check, text, Optional.empty());
        }
    }

    private final PrintStream out;
    private final PrintStream err;
    private final UnaryOperator<String> environment;

    /** @param environment looks up environment variables (null when unset): PATH for tmux */
    DoctorCommand(PrintStream out, PrintStream err, UnaryOperator<String> environment) {
        this.out = out;
        this.err = err;
        this.environment = environment;
    }

    int run(String[] argv) {
        picocli.CommandLine.ParseResult r;
        try {
            r = ClientOptions.parse(spec(), "doctor", withoutSimCount(List.of(argv).subList(1, argv.length)), false);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        if (r.isUsageHelpRequested()) {
            out.print(ClientOptions.usage(r.commandSpec()));
            return 0;
        }
        boolean sim = r.hasMatchedOption("--sim");
        Optional<Path> socket = r.hasMatchedOption("--socket")
                ? Optional.of(Path.of(r.<String>matchedOptionValue("--socket", ""))) : Optional.empty();
        Optional<Path> logDir = r.hasMatchedOption("--log-dir")
                ? Optional.of(Path.of(r.<String>matchedOptionValue("--log-dir", ""))) : Optional.empty();
        Path config = Path.of(r.<String>matchedOptionValue("--config", CONFIG.toString()));
        Map<String, String> backendOptions = new HashMap<>();
        if (r.hasMatchedOption("--nvml-library")) {
            backendOptions.put("library", r.matchedOptionValue("--nvml-library", ""));
        }
        Optional<String> backend = Optional.ofNullable(r.matchedOptionValue("--backend", null));
        try {
            // As serve refuses it: checking the simulation alone dropped the --backend unsaid.
            CliArgs.simulatedGpus(sim, false, backend);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = logDir.orElse(root ? CliArgs.ROOT_STATE_DIR : Path.of("gpusched_logs"));
        Path sock = socket.orElseGet(ClientCommand::serveSocket);
        List<Finding> findings = new ArrayList<>();
        findings.add(sim ? Finding.note("GPU backend", "--sim: GPUs are simulated; no driver is needed")
                : gpuBackend(backend, new BackendOptions(backendOptions)));
        findings.add(Preflight.setsid().map(p -> Finding.ok("util-linux", "setsid at " + p))
                .orElseGet(() -> new Finding(Level.PROBLEM, "util-linux", "setsid not found: gpusched gives each job a session"
                        + " of its own with it and will not start without it", Optional.of("apt-get install util-linux"))));
        findings.add(tmux());
        findings.addAll(helpers(dir, root));
        findings.add(stateDirectory(dir, root));
        findings.add(socketDirectory(sock));
        findings.add(configuration(config));
        findings.add(daemon(sock));
        boolean problem = false;
        for (Finding f : findings) {
            out.printf("%-8s %s: %s%n", f.level().word, f.check(), f.text());
            f.fix().ifPresent(fix -> out.printf("%-8s   fix: %s%n", "", fix));
            problem |= f.level() == Level.PROBLEM;
        }
        long problems = findings.stream().filter(f -> f.level() == Level.PROBLEM).count();
        long warnings = findings.stream().filter(f -> f.level() == Level.WARNING).count();
        out.println(problems == 0 && warnings == 0 ? "all checks passed"
                : plural(problems, "problem") + ", " + plural(warnings, "warning"));
        return problem ? 1 : 0;
    }

    private static String plural(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }

    /** The backend serve would pick (detection, or the one named), opened once and read. */
    private static Finding gpuBackend(Optional<String> name, BackendOptions options) {
        if (name.isEmpty()) {
            List<String> reasons = new ArrayList<>();
            for (GpuBackendProvider p : GpuBackends.providers()) {
                if (p.priority() < 0) {
                    continue;
                }
                GpuBackendProvider.Availability a = p.availability(options);
                if (a.available()) {
                    return open(p.name(), options);
                }
                reasons.add(p.name() + ": " + a.reason());
            }
            return new Finding(Level.PROBLEM, "GPU backend", "no GPU found: " + (reasons.isEmpty() ? "no backend on the class"
                    + " path" : String.join("; ", reasons)), Optional.of("install NVIDIA's driver (Debian: nvidia-driver, which"
                    + " brings libnvidia-ml.so.1) and reboot, or set GPUSCHED_NVML_LIBRARY to the driver's libnvidia-ml.so.1;"
                    + " on a machine without GPUs, serve --sim N simulates them (then check with gpusched doctor --sim)"));
        }
        return open(name.get(), options);
    }

    private static Finding open(String name, BackendOptions options) {
        try (GpuBackend b = GpuBackends.load(name, options)) {
            int gpus = b.snapshot().gpus().size();
            if (gpus == 0) {
                return new Finding(Level.PROBLEM, "GPU backend", b.describe() + " sees no GPU", Optional.of("check nvidia-smi;"
                        + " a GPU the driver lost needs a reset or a reboot"));
            }
            return Finding.ok("GPU backend", b.describe() + ", " + gpus + " schedulable GPU" + (gpus == 1 ? "" : "s"));
        } catch (GpuschedException e) {
            return new Finding(Level.PROBLEM, "GPU backend", name + ": " + e.getMessage(), Optional.of("see nvidia-smi; after"
                    + " a driver upgrade, reboot (or reload the nvidia modules)"));
        }
    }

    /** tmux on this PATH: [tty] jobs need it; nothing else does. */
    private Finding tmux() {
        Optional<Path> found = onPath("tmux");
        return found.map(p -> Finding.ok("tmux", "at " + p + " (for [tty] jobs)"))
                .orElseGet(() -> new Finding(Level.WARNING, "tmux", "not found on PATH (" + Optional.ofNullable(
                        environment.apply("PATH")).orElse("") + "): [tty] jobs fail at once; other jobs are not affected",
                        Optional.of("apt-get install tmux")));
    }

    private Optional<Path> onPath(String program) {
        String path = Optional.ofNullable(environment.apply("PATH")).orElse("");
        for (String d : path.split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program)) && !Files.isDirectory(Path.of(d, program))) {
                return Optional.of(Path.of(d, program));
            }
        }
        return Optional.empty();
    }

    /** The C helpers, run once from where serve would run them. */
    private static List<Finding> helpers(Path logDir, boolean root) {
        List<Finding> out = new ArrayList<>();
        for (Preflight.Helper h : Preflight.helpers(Optional.of(logDir.resolve("runs")))) {
            boolean needed = h.name().equals("gpusched-runas") && Preflight.runsAsOwners();
            if (h.runs()) {
                out.add(Finding.ok(h.name(), h.detail()));
            } else if (h.name().equals("gpusched-runas") && !root) {
                out.add(Finding.note(h.name(), h.detail() + " (only a root daemon uses it)"));
            } else {
                String fix = h.present() ? "the daemon runs it from " + logDir.resolve("runs") + ": that file system must"
                        + " allow executing (not mounted noexec)" : "rebuild gpusched with gcc installed, or install a release";
                out.add(new Finding(needed ? Level.PROBLEM : Level.WARNING, h.name(), h.detail() + (needed
                        ? ": other users' submissions cannot start" : ": jobs are spawned by the JVM instead, more slowly"),
                        Optional.of(fix)));
            }
        }
        return out;
    }

    /** A root daemon's rules for its state directory (StateDirectory); a user's own directory is theirs. */
    private static Finding stateDirectory(Path dir, boolean root) {
        if (!root) {
            if (Files.isDirectory(dir) && !Files.isWritable(dir)) {
                return new Finding(Level.PROBLEM, "state directory", dir + " is not writable by you",
                        Optional.of("use --log-dir with a directory of yours"));
            }
            return Finding.ok("state directory", dir + (Files.isDirectory(dir) ? "" : " (created at the first start)"));
        }
        StateDirectory.Inspection i = StateDirectory.inspect(dir);
        if (i.problem().isPresent()) {
            return new Finding(Level.PROBLEM, "state directory", i.problem().get(), Optional.empty());
        }
        if (!i.changes().isEmpty()) {
            return Finding.note("state directory", String.join("; ", i.changes()));
        }
        return Finding.ok("state directory", dir + ": root's alone (0700)");
    }

    private static Finding socketDirectory(Path socket) {
        Optional<String> problem = ServiceServer.socketDirectoryProblem(socket);
        Path dir = socket.toAbsolutePath().getParent();
        if (problem.isPresent()) {
            return new Finding(Level.PROBLEM, "socket directory", problem.get(), Optional.empty());
        }
        return Finding.ok("socket directory", dir + (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                ? ": yours, writable by nobody else" : " (created at the first start)"));
    }

    /**
     * The configuration file, when there is one: read by serve's own reader ({@link ServeConfig#read}: its
     * owner and mode, {@code key = value} lines, {@code #} comments, quotes), then its options checked by
     * serve's own parser, as {@code gpusched serve} would at its start; a bad value is told with the line
     * that set it.
     */
    static Finding configuration(Path file) {
        if (!Files.exists(file)) {
            return Finding.note("configuration", "no " + file + ": the daemon runs on its flags alone");
        }
        if (!Files.isReadable(file)) {
            return new Finding(Level.PROBLEM, "configuration", "cannot read " + file,
                    Optional.of("chmod 644 " + file + " (it holds no secret: tokens go in --metrics-token-file)"));
        }
        ServeConfig config;
        try {
            config = ServeConfig.read(file, true);
        } catch (UsageException e) {
            return new Finding(Level.PROBLEM, "configuration", e.getMessage(), Optional.of("correct " + file
                    + " (its keys are serve's long options without --: key = value)"));
        }
        try {
            CliArgs.parse(true, config.argv().toArray(String[]::new));
        } catch (UsageException e) {
            return new Finding(Level.PROBLEM, "configuration", config.blame(e.getMessage()), Optional.of("correct " + file));
        }
        return Finding.ok("configuration", file + " reads as serve's options");
    }

    /** Whether a daemon answers there, and who it is. */
    private static Finding daemon(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return new Finding(Level.WARNING, "daemon", "none listens on " + socket, Optional.of("start it: systemctl start"
                    + " gpusched (or gpusched serve)"));
        }
        try (GpuschedClient c = GpuschedClient.connect(socket)) {
            c.queue();
            return Finding.ok("daemon", "answers on " + socket + " (you are " + c.user() + " to it)");
        } catch (ServiceException e) {
            if (e.code().equals("unreachable")) {
                return new Finding(Level.WARNING, "daemon", "none answers on " + socket + " (a socket left by one that"
                        + " stopped; the next start replaces it)", Optional.of("start it: systemctl start gpusched (or"
                        + " gpusched serve)"));
            }
            return new Finding(Level.PROBLEM, "daemon", e.getMessage(), Optional.empty());
        }
    }
}
