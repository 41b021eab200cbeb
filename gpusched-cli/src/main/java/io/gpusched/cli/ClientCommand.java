package io.gpusched.cli;

import io.gpusched.model.CancelOutcome;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.PrintStream;
import java.nio.file.Path;
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

    /** Every client verb's {@code --help}, one after the other (for the man page). */
    static String help() {
        StringBuilder b = new StringBuilder();
        for (String verb : ClientOptions.VERBS) {
            if (!verb.equals("srun")) {
                b.append(b.length() == 0 ? "" : "\n").append(ClientOptions.usage(verb));
            }
        }
        return b.toString();
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
        ClientOptions.Parsed p;
        try {
            p = ClientOptions.parse(verb, List.of(argv).subList(1, argv.length));
            if (p.help()) {
                out.print(ClientOptions.usage(verb));
                return 0;
            }
            check(verb, p);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        if (verb.equals("submit")) {
            // The daemon would refuse it the same way (exit 1), but in the words of a job line never typed.
            Optional<String> refused = ClientOptions.refusal(p);
            if (refused.isPresent()) {
                err.println("gpusched: " + refused.get());
                return 1;
            }
        }
        List<String> words = p.words();
        Optional<String> user = p.user();
        boolean json = p.json();
        boolean follow = p.follow();
        try (GpuschedClient c = GpuschedClient.connect(p.socket().orElseGet(GpuschedClient::defaultSocket))) {
            switch (verb) {
                case "submit" -> {
                    GpuschedClient.Submission submission = new GpuschedClient.Submission(p.line(),
                            Path.of("").toAbsolutePath(), Optional.of(System.getenv()), p.output(), Optional.empty());
                    if (p.dryRun()) {
                        (json ? out : LocaleText.of(out)).println(DryRun.say(c.preview(submission), json));
                        return ExitCodes.OK;
                    }
                    io.gpusched.protocol.Answer.Submitted answer = c.submitted(submission);
                    int no = answer.no();
                    if (answer.already().isPresent()) {
                        // A unique job the daemon did not queue again: the one already there is the answer.
                        io.gpusched.model.JobState st = answer.already().get();
                        out.println(json ? "{\"no\":" + no + ",\"already\":\"" + st.journalName() + "\"}"
                                : "job " + no + " " + io.gpusched.model.DuplicateJobException.said(st) + ": not submitted again");
                    } else {
                        out.println(json ? "{\"no\":" + no + "}" : "submitted job " + no);
                    }
                    if (follow) {
                        return jobOutput.followToOutcome(c, no);
                    }
                }
                case "queue" -> {
                    Optional<String> whose = user.map(u -> u.equals("me") ? c.user() : u);
                    // Buffered: a line written and flushed per row cost 0.3 s at 100,000 rows.
                    PrintStream page = new PrintStream(new java.io.BufferedOutputStream(out, 1 << 16), false,
                            java.nio.charset.StandardCharsets.UTF_8);
                    if (json) {
                        page.println(QueueText.queueJson(new QueueView(whose, p.all()).apply(c.queue())));
                    } else {
                        printQueue(c, page, p, whose);
                    }
                    page.flush();
                }
                case "info" -> QueueText.printInfo(json ? out : LocaleText.of(out), c.queueSummary().snapshot(), json);
                case "show" -> QueueText.printJob(json ? out : LocaleText.of(out), c.job(number(words.get(0), "a job number")),
                        json);
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
                    return words.isEmpty() ? new TerminalJobs(out, err, jobOutput).run(c)
                            : jobOutput.attach(c, number(words.get(0), "a job number"));
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

    /**
     * {@code gpusched queue}'s text, printed by the daemon with this terminal's and locale's options and
     * copied out (issue #27: decoding and formatting every row in this cold JVM was most of the verb's
     * wall time); from a daemon that prints no text, printed here from its rows, the same text.
     */
    private static void printQueue(GpuschedClient c, PrintStream page, ClientOptions.Parsed p, Optional<String> whose) {
        boolean table = QueueTable.table(p.format());
        java.util.OptionalInt width = table ? Terminal.columns() : java.util.OptionalInt.empty();
        boolean ascii = !QueueTable.utf8Locale();
        io.gpusched.protocol.Request.Text options = new io.gpusched.protocol.Request.Text(table,
                p.format().map(QueueFormat::spec), QuickQueue.clamp(width), ascii, whose.filter(u -> !u.isEmpty()), p.all());
        Optional<io.gpusched.protocol.QueueView> rows = c.queueText(options, page);
        if (rows.isPresent()) {
            QueueTable.printQueue(page, new QueueView(whose, p.all()).apply(rows.get()), p.format(), table, width, ascii);
        }
    }


    /** What each verb needs besides its options: a command, one job number, numbers or GPUs, or nothing. */
    private static void check(String verb, ClientOptions.Parsed p) {
        List<String> words = p.words();
        if (verb.equals("submit") && words.isEmpty()) {
            throw new UsageException("submit needs a command after --: gpusched submit [options] -- CMD...");
        }
        if ((verb.equals("logs") || verb.equals("show")) && words.size() != 1) {
            throw new UsageException(verb + " takes one job number, e.g. gpusched " + verb + " 3");
        }
        if (verb.equals("attach") && words.size() > 1) {
            throw new UsageException("attach takes one job number, e.g. gpusched attach 3 (none: your jobs with a terminal)");
        }
        if ((verb.equals("dashboard") || verb.equals("queue") || verb.equals("info")) && !words.isEmpty()) {
            throw new UsageException(verb + " takes no arguments: gpusched " + verb + " [--json]");
        }
        if (verb.equals("drain") && !words.isEmpty()) {
            throw new UsageException("drain takes no arguments: gpusched drain [--socket PATH]");
        }
        if (verb.equals("cancel") && p.user().isPresent() && !words.isEmpty()) {
            throw new UsageException("cancel takes job numbers or --user, not both");
        }
        if (Set.of("cancel", "pause", "resume").contains(verb) && words.isEmpty() && p.user().isEmpty()) {
            throw new UsageException(verb + " needs " + (verb.equals("cancel") ? "job numbers" : "GPU indices")
                    + ", e.g. gpusched " + verb + " 3");
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

    /** A job number or GPU index as typed: a whole number from 0 up, or a usage error that says so. */
    private static int number(String w, String what) {
        try {
            int n = Integer.parseInt(w);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below, as for a negative one
        }
        throw new UsageException("'" + w + "' is not " + what);
    }
}
