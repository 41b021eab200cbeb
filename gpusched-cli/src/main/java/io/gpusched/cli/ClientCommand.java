package io.gpusched.cli;

import io.gpusched.model.CancelOutcome;
import io.gpusched.jobs.Attribute;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The verbs that talk to a running {@code gpusched serve}: {@code submit}, {@code queue}, {@code show},
 * {@code info}, {@code cancel}, {@code logs}, {@code attach}, {@code pause}, {@code resume},
 * {@code dashboard}, {@code drain}. Each connects to the socket from {@code --socket}, {@code GPUSCHED_SOCKET}, the
 * system daemon's or this user's, in that order.
 */
final class ClientCommand {
    static final Set<String> VERBS = Set.of("submit", "queue", "show", "info", "cancel", "pause", "resume", "logs", "attach",
            "dashboard", "drain");
    /** The socket a jobs-file run answers on, in its log directory. */
    static final String RUN_SOCKET = "gpusched.sock";

    static final String HELP = String.join("\n", help());

    /** The help text's lines; the attribute options come from the attribute table. */
    private static List<String> help() {
        List<String> submit = new ArrayList<>(AttributeOptions.usage(a -> true));
        submit.addAll(List.of("[--output PATH]", "[--follow]", "[--dry-run]", "[--json]", "--", "CMD..."));
        List<String> lines = new ArrayList<>();
        lines.add("usage: gpusched serve [--socket PATH] [--jobs FILE] [run options]   a daemon for this user");
        lines.addAll(AttributeOptions.wrap("       gpusched submit ", submit, 104));
        lines.addAll(List.of(
            "       gpusched queue [--user U|me] [--all] [--json] [--format SPEC]",
            "                                        the queue: running, pending (and why), the last 10 done;",
            "                                        --user: only U's jobs; --all: every finished job held",
            "                                        (those of earlier daemons too, from its journal);",
            "                                        a table on a terminal, or with --format (see below);",
            "                                        a command over 200 characters is shortened, ending in …",
            "       gpusched show N [--json]         one job: where it is, why it waits, its whole command",
            "       gpusched info [--json]           the GPUs: memory, utilisation, paused or not",
            "       gpusched cancel N...  |  gpusched cancel --user U|me   (every pending and running job of U)",
            "       gpusched logs N [-f]             a job's output; -f follows it until the job ends (Ctrl-C detaches)",
            "       gpusched attach N                a [tty] job's terminal (Ctrl-b d detaches; the job goes on);",
            "                                        a job without one: its log, followed as logs N -f",
            "       gpusched pause GPU...  |  gpusched resume GPU...",
            "       gpusched dashboard [--json]     your URL of the daemon's web dashboard (serve --dashboard): it",
            "                                        carries your token, so keep it to yourself; valid until the",
            "                                        daemon restarts",
            "       gpusched drain                   the daemon starts no job from now on and exits once the running",
            "                                        ones have ended; queued jobs wait in its journal for the next",
            "                                        gpusched serve (root, --admin-group members, or its own user)",
            "       gpusched top [--interval S] [--once]   the GPUs and the queue, live (see gpusched top --help)",
            "       gpusched srun [submit's options] [-n N] -- CMD...   waits for GPUs, then runs CMD in this terminal",
            "                                        (see gpusched srun --help)",
            "",
            "options of submit that set a job attribute, as a jobs file's [k=v ...] block does (docs/jobs-file.md):"));
        lines.addAll(AttributeOptions.optionLines(a -> true, Map.of(),
                a -> AttributeOptions.forSrun(a) ? "" : "(not srun)"));
        lines.addAll(List.of(
            "",
            "submit --output PATH (-o): the job's stdout and stderr go to PATH, relative to this directory",
            "(default: the daemon's log directory, or ./gpusched-N.log under a root daemon). submit --follow",
            "(-f): after the number, follow the job's output as logs -f does, then print its outcome and exit",
            "with its exit status; Ctrl-C detaches and the job goes on. submit --dry-run: queue nothing; say",
            "where the job would start now, or why it would wait (exit 0), or why it could never run (exit 1).",
            "Another user's jobs are theirs to cancel and read: --user naming them, or logs N of one",
            "of their jobs, is for root and --admin-group members only.",
            "",
            "Every verb takes --socket PATH (or GPUSCHED_SOCKET), or --log-dir DIR for a jobs-file run, which",
            "answers on DIR/gpusched.sock; otherwise /run/gpusched/gpusched.sock when",
            "it exists, else this user's $XDG_RUNTIME_DIR/gpusched/gpusched.sock (/tmp/gpusched-USER/ without",
            "XDG_RUNTIME_DIR). submit joins the words after -- into one command line run by /bin/sh -c, in",
            "this directory and with this environment, and prints the job's number.",
            "",
            "queue --format SPEC: the table's columns, as squeue -o: %-fields (\"%i %u %t %.M %30c %r\") or",
            "names (job,user,state,time:.6,command:30,reason); a number is the most columns a field takes, a",
            "'.' aligns it right; the last column is cut to the terminal. " + QueueFormat.known() + ".",
            "Plain ASCII when the locale (LC_ALL, LC_CTYPE, LANG) names another charset than UTF-8.",
            "",
            "Exit codes:"));
        lines.addAll(ExitCodes.TABLE.stream().map(l -> "  " + l).toList());
        lines.add("(a jobs-file run's own exit codes: docs/scripts.md)");
        return lines;
    }

    private final PrintStream out;
    private final PrintStream err;
    private final JobOutputReader jobOutput;

    /** @param onInterrupt told what Ctrl-C does while a log is followed (detach), and {@code null} after */
    ClientCommand(PrintStream out, PrintStream err, java.util.function.Consumer<Runnable> onInterrupt) {
        this.out = out;
        this.err = err;
        this.jobOutput = new JobOutputReader(out, err, onInterrupt);
    }

    /**
     * Where {@code gpusched serve} listens without {@code --socket}: GPUSCHED_SOCKET, else the system
     * socket for root (which serves every user), else this user's.
     */
    static Path serveSocket() {
        String env = System.getenv("GPUSCHED_SOCKET");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return "root".equals(System.getProperty("user.name")) ? Path.of("/run/gpusched/gpusched.sock")
                : GpuschedClient.userSocket();
    }

    int run(String[] argv) {
        String verb = argv[0];
        List<String> rest = new ArrayList<>(List.of(argv).subList(1, argv.length));
        Optional<Path> socket = Optional.empty();
        boolean json = false;
        boolean follow = false;
        Optional<Path> output = Optional.empty();
        Optional<String> user = Optional.empty();
        boolean all = false;
        boolean dryRun = false;
        Optional<QueueFormat> format = Optional.empty();
        AttributeOptions attrs = new AttributeOptions();
        List<String> words = new ArrayList<>();
        try {
            for (int i = 0; i < rest.size(); i++) {
                String a = rest.get(i);
                if (verb.equals("submit") && a.equals("--")) {
                    words.addAll(rest.subList(i + 1, rest.size()));
                    break;
                }
                switch (a) {
                    case "-h", "--help" -> {
                        out.println(HELP);
                        return 0;
                    }
                    case "--json" -> json = true;
                    case "-f", "--follow" -> {
                        if (!verb.equals("logs") && !verb.equals("submit")) {
                            throw new UsageException(a + " is an option of gpusched logs and gpusched submit");
                        }
                        follow = true;
                    }
                    case "-o", "--output" -> {
                        if (!verb.equals("submit")) {
                            throw new UsageException(a + " is an option of gpusched submit");
                        }
                        output = Optional.of(Path.of(value(rest, ++i, a)));
                    }
                    case "--user" -> {
                        if (!verb.equals("queue") && !verb.equals("cancel")) {
                            throw new UsageException(a + " is an option of gpusched queue and gpusched cancel");
                        }
                        user = Optional.of(value(rest, ++i, a));
                    }
                    case "--all" -> {
                        if (!verb.equals("queue")) {
                            throw new UsageException(a + " is an option of gpusched queue");
                        }
                        all = true;
                    }
                    case "--dry-run" -> {
                        if (!verb.equals("submit")) {
                            throw new UsageException(a + " is an option of gpusched submit");
                        }
                        dryRun = true;
                    }
                    case "--format" -> {
                        if (!verb.equals("queue")) {
                            throw new UsageException(a + " is an option of gpusched queue");
                        }
                        format = Optional.of(QueueFormat.parse(value(rest, ++i, a)));
                    }
                    case "--socket" -> socket = Optional.of(Path.of(value(rest, ++i, a)));
                    case "--log-dir" -> socket = Optional.of(Path.of(value(rest, ++i, a)).resolve(RUN_SOCKET));
                    default -> {
                        Optional<Attribute> attribute = AttributeOptions.of(a);
                        if (attribute.isPresent()) {
                            if (!verb.equals("submit")) {
                                throw new UsageException(a + " is an option of gpusched submit");
                            }
                            i = attrs.add(attribute.get(), rest, i);
                        } else if (a.startsWith("-")) {
                            throw new UsageException("unknown option " + a + " for gpusched " + verb
                                    + " (see gpusched " + verb + " --help)");
                        } else {
                            words.add(a);
                        }
                    }
                }
            }
            if (verb.equals("submit") && words.isEmpty()) {
                throw new UsageException("submit needs a command after --: gpusched submit [options] -- CMD...");
            }
            if ((verb.equals("logs") || verb.equals("attach") || verb.equals("show")) && words.size() != 1) {
                throw new UsageException(verb + " takes one job number, e.g. gpusched " + verb + " 3");
            }
            if (verb.equals("dashboard") && !words.isEmpty()) {
                throw new UsageException("dashboard takes no arguments: gpusched dashboard [--json]");
            }
            if (verb.equals("drain") && (!words.isEmpty() || json)) {
                throw new UsageException("drain takes no arguments: gpusched drain [--socket PATH]");
            }
            if (verb.equals("cancel") && user.isPresent() && !words.isEmpty()) {
                throw new UsageException("cancel takes job numbers or --user, not both");
            }
            if (Set.of("cancel", "pause", "resume").contains(verb) && words.isEmpty() && user.isEmpty()) {
                throw new UsageException(verb + " needs " + (verb.equals("cancel") ? "job numbers" : "GPU indices")
                        + ", e.g. gpusched " + verb + " 3");
            }
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        try (GpuschedClient c = GpuschedClient.connect(socket.orElseGet(GpuschedClient::defaultSocket))) {
            switch (verb) {
                case "submit" -> {
                    String line = attrs.line(String.join(" ", words));
                    GpuschedClient.Submission submission = new GpuschedClient.Submission(line,
                            Path.of("").toAbsolutePath(), Optional.of(System.getenv()), output, Optional.empty());
                    if (dryRun) {
                        out.println(DryRun.say(c.preview(submission), json));
                        return ExitCodes.OK;
                    }
                    int no = c.submit(submission);
                    out.println(json ? "{\"no\":" + no + "}" : "submitted job " + no);
                    if (follow) {
                        return jobOutput.followToOutcome(c, no);
                    }
                }
                case "queue" -> {
                    QueueView.Shown shown = new QueueView(user.map(u -> u.equals("me") ? c.user() : u), all).apply(c.queue());
                    // Buffered: a line written and flushed per row cost 0.3 s at 100,000 rows.
                    PrintStream page = new PrintStream(new java.io.BufferedOutputStream(out, 1 << 16), false,
                            java.nio.charset.StandardCharsets.UTF_8);
                    if (json) {
                        page.println(QueueText.queueJson(shown));
                    } else {
                        QueueTable.printQueue(page, shown, format);
                    }
                    page.flush();
                }
                case "info" -> QueueText.printInfo(out, c.queueSummary().snapshot(), json);
                case "show" -> QueueText.printJob(out, c.job(number(words.get(0), "a job number")), json);
                case "dashboard" -> {
                    String url = c.dashboardUrl();
                    out.println(json ? io.gpusched.event.JsonEventWriter.valueToJson(Map.of("url", url)) : url);
                }
                case "drain" -> {
                    int running = c.drain();
                    out.println(running == 0 ? "draining: no job is running, so the daemon exits now; queued jobs wait"
                            + " in its journal for the next gpusched serve"
                            : "draining: the daemon starts no job from now on and exits once its " + running + " running job"
                            + (running == 1 ? " ends" : "s end") + " (gpusched queue shows them); queued jobs wait in its"
                            + " journal for the next gpusched serve");
                }
                case "logs" -> {
                    return jobOutput.logs(c, number(words.get(0), "a job number"), follow);
                }
                case "attach" -> {
                    return jobOutput.attach(c, number(words.get(0), "a job number"));
                }
                case "cancel" -> {
                    if (user.isPresent()) {
                        String u = user.get().equals("me") ? c.user() : user.get();
                        java.util.SortedMap<Integer, CancelOutcome> theirs = c.cancelAll(u);
                        theirs.forEach((no, o) -> out.println(cancelled(no, o)));
                        if (theirs.isEmpty()) {
                            out.println("no pending or running job of " + u + " to cancel");
                        }
                    }
                    int rc = ExitCodes.OK;
                    for (String w : words) {
                        int no = number(w, "a job number");
                        CancelOutcome o = c.cancel(no);
                        out.println(cancelled(no, o));
                        rc = o == CancelOutcome.NOT_FOUND ? ExitCodes.REFUSED : rc;
                    }
                    return rc;
                }
                default -> {
                    for (String w : words) {
                        int gpu = number(w, "a GPU index");
                        if (verb.equals("pause")) {
                            c.pause(gpu);
                            out.println("gpu " + gpu + " paused: running jobs continue, nothing new starts there");
                        } else {
                            c.resume(gpu);
                            out.println("gpu " + gpu + " resumed");
                        }
                    }
                }
            }
            return 0;
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        } catch (ServiceException e) {
            err.println("gpusched: " + e.getMessage());
            return 1;
        }
    }

    /** One line per cancelled job, as {@code gpusched cancel} prints it. */
    static String cancelled(int no, CancelOutcome o) {
        return "job " + no + ": " + switch (o) {
            case CANCELLED -> "cancelled before it started";
            case STOPPING -> "stopping (SIGTERM to its session)";
            case ALREADY_ENDED -> "had already ended";
            case NOT_FOUND -> "no such job";
        };
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new UsageException(option + " needs a value");
        }
        return args.get(i);
    }

    private static int number(String w, String what) {
        try {
            return Integer.parseInt(w);
        } catch (NumberFormatException e) {
            throw new UsageException("'" + w + "' is not " + what);
        }
    }
}
