package io.gpusched.cli;

import io.gpusched.CancelOutcome;
import io.gpusched.jobs.JobsFileParser;
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
 * The verbs that talk to a running {@code gpusched serve}: {@code submit}, {@code queue}, {@code info},
 * {@code cancel}, {@code logs}, {@code attach}, {@code pause}, {@code resume}. Each connects to the socket from {@code --socket}, {@code GPUSCHED_SOCKET},
 * the system daemon's or this user's, in that order.
 */
final class ClientCommand {
    static final Set<String> VERBS = Set.of("submit", "queue", "info", "cancel", "pause", "resume", "logs", "attach");
    /** The socket a jobs-file run answers on, in its log directory. */
    static final String RUN_SOCKET = "gpusched.sock";

    static final String HELP = String.join("\n",
            "usage: gpusched serve [--socket PATH] [--jobs FILE] [run options]   a daemon for this user",
            "       gpusched submit [--vram 18G] [--gpus N|0.5] [--priority N] [--gpu-ids 0,1] [--timeout 2h]",
            "                       [--retries N] [--name X] [--after X] [--conda ENV] [--setup TEXT]",
            "                       [--tty] [--output PATH] [--follow] [--json] -- CMD...",
            "       gpusched queue [--user U|me] [--all] [--json]",
            "                                        the queue: running, pending (and why), the last 10 done;",
            "                                        --user: only U's jobs; --all: every finished job held",
            "       gpusched info [--json]           the GPUs: memory, utilisation, paused or not",
            "       gpusched cancel N...  |  gpusched cancel --user U|me   (every pending and running job of U)",
            "       gpusched logs N [-f]             a job's output; -f follows it until the job ends (Ctrl-C detaches)",
            "       gpusched attach N                a [tty] job's terminal (Ctrl-b d detaches; the job goes on);",
            "                                        a job without one: its log, followed as logs N -f",
            "       gpusched pause GPU...  |  gpusched resume GPU...",
            "       gpusched top [--interval S] [--once]   the GPUs and the queue, live (see gpusched top --help)",
            "       gpusched srun [submit's options] [-n N] -- CMD...   waits for GPUs, then runs CMD in this terminal",
            "                                        (see gpusched srun --help)",
            "",
            "submit --output PATH (-o): the job's stdout and stderr go to PATH, relative to this directory",
            "(default: the daemon's log directory, or ./gpusched-N.log under a root daemon). submit --follow",
            "(-f): after the number, follow the job's output as logs -f does; Ctrl-C detaches and the job",
            "goes on. Another user's jobs are theirs to cancel and read: --user naming them, or logs N of one",
            "of their jobs, is for root and --admin-group members only.",
            "",
            "Every verb takes --socket PATH (or GPUSCHED_SOCKET), or --log-dir DIR for a jobs-file run, which",
            "answers on DIR/gpusched.sock; otherwise /run/gpusched/gpusched.sock when",
            "it exists, else this user's $XDG_RUNTIME_DIR/gpusched/gpusched.sock (/tmp/gpusched-USER/ without",
            "XDG_RUNTIME_DIR). submit joins the words after -- into one command line run by /bin/sh -c, in",
            "this directory and with this environment, and prints the job's number; --conda ENV runs it through",
            "conda run in that environment, --setup TEXT runs TEXT first in the same shell (as the jobs-file",
            "attributes conda= and setup=); --tty runs it in a tmux session of its own (the attribute tty). Exit 0, 1 when the service refused (the reason is printed), 2 for a",
            "bad command line.");

    private final PrintStream out;
    private final PrintStream err;
    private final java.util.function.Consumer<Runnable> onInterrupt;

    /** @param onInterrupt told what Ctrl-C does while a log is followed (detach), and {@code null} after */
    ClientCommand(PrintStream out, PrintStream err, java.util.function.Consumer<Runnable> onInterrupt) {
        this.out = out;
        this.err = err;
        this.onInterrupt = onInterrupt;
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
        List<String> attrs = new ArrayList<>();
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
                    case "--tty" -> {
                        if (!verb.equals("submit")) {
                            throw new UsageException(a + " is an option of gpusched submit");
                        }
                        attrs.add("tty");
                    }
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
                    case "--socket" -> socket = Optional.of(Path.of(value(rest, ++i, a)));
                    case "--log-dir" -> socket = Optional.of(Path.of(value(rest, ++i, a)).resolve(RUN_SOCKET));
                    case "--vram", "--gpus", "--priority", "--gpu-ids", "--timeout", "--retries", "--name", "--after",
                         "--conda", "--setup" -> {
                        if (!verb.equals("submit")) {
                            throw new UsageException(a + " is an option of gpusched submit");
                        }
                        attrs.add(a.substring(2) + "=" + JobsFileParser.quote(value(rest, ++i, a)));
                    }
                    default -> {
                        if (a.startsWith("-")) {
                            throw new UsageException("unknown option " + a + " for gpusched " + verb
                                    + " (see gpusched " + verb + " --help)");
                        }
                        words.add(a);
                    }
                }
            }
            if (verb.equals("submit") && words.isEmpty()) {
                throw new UsageException("submit needs a command after --: gpusched submit [options] -- CMD...");
            }
            if ((verb.equals("logs") || verb.equals("attach")) && words.size() != 1) {
                throw new UsageException(verb + " takes one job number, e.g. gpusched " + verb + " 3");
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
                    String line = (attrs.isEmpty() ? "[] " : "[" + String.join(" ", attrs) + "] ") + String.join(" ", words);
                    int no = c.submit(new GpuschedClient.Submission(line, Path.of("").toAbsolutePath(),
                            Optional.of(System.getenv()), output, Optional.empty()));
                    out.println(json ? "{\"no\":" + no + "}" : "submitted job " + no);
                    if (follow) {
                        return logs(c, no, true);
                    }
                }
                case "queue" -> {
                    QueueView.Shown shown = new QueueView(user.map(u -> u.equals("me") ? c.user() : u), all).apply(c.queue());
                    if (json) {
                        out.println(io.gpusched.JsonEventWriter.valueToJson(Map.of("snapshot", shown.snapshot())));
                    } else {
                        printQueue(shown);
                    }
                }
                case "info" -> printInfo(c.queue(), json);
                case "logs" -> {
                    return logs(c, number(words.get(0), "a job number"), follow);
                }
                case "attach" -> {
                    return attach(c, number(words.get(0), "a job number"));
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
                    for (String w : words) {
                        int no = number(w, "a job number");
                        out.println(cancelled(no, c.cancel(no)));
                    }
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
     * Attaches to a running {@code [tty]} job's terminal; any other job's log is followed instead, as
     * {@code logs N -f} does, after one line saying so.
     */
    private int attach(GpuschedClient c, int no) {
        GpuschedClient.Logs logs = c.logs(no);
        TmuxAttach.Result found = logs.tty().map(TmuxAttach::hasSession).orElse(TmuxAttach.Result.NO_SESSION);
        if (found == TmuxAttach.Result.ATTACHED) {
            try {
                int rc = TmuxAttach.attach(logs.tty().get());
                String state = c.logs(no).state();
                err.println(state.equals("running") ? "detached: job " + no + " keeps running (gpusched attach " + no
                        + " attaches again)" : "job " + no + " has " + state);
                return rc == 0 ? 0 : 1;
            } catch (java.io.IOException e) {
                found = TmuxAttach.Result.NO_TMUX;
            }
        }
        if (logs.state().equals("unknown")) {
            err.println("gpusched: no job " + no + " in this queue");
            return 1;
        }
        err.println("gpusched: job " + no + (found == TmuxAttach.Result.NO_TMUX
                ? " may have a terminal, but there is no tmux here (install the package tmux)"
                : " has no terminal to attach to (not a [tty] job, or not running)") + "; following its log as"
                + " gpusched logs " + no + " -f does");
        return logs(c, no, true);
    }

    /**
     * Prints a job's output: every attempt's log in turn; with {@code follow}, then what the newest one
     * gains until the job has ended (polling: the file is the job's, written by it).
     */
    private int logs(GpuschedClient c, int no, boolean follow) {
        GpuschedClient.Logs logs = c.logs(no);
        if (!follow) {
            if (logs.files().isEmpty()) {
                err.println("gpusched: " + (logs.state().equals("unknown") ? "no job " + no + " in this queue"
                        : "job " + no + " has no log yet (" + logs.state() + ")"));
                return 1;
            }
            logs.files().forEach(f -> copy(f, 0));
            return 0;
        }
        // Ctrl-C stops following, not the job: Main's shutdown hook says so and exits 0.
        onInterrupt.accept(() -> err.println("detached: job " + no + " keeps running (gpusched logs " + no
                + " -f follows it again)"));
        try {
            return follow(c, no, logs);
        } finally {
            onInterrupt.accept(null);
        }
    }

    /** Copies every attempt's log in turn, then what the newest gains, until the job has ended. */
    private int follow(GpuschedClient c, int no, GpuschedClient.Logs first) {
        GpuschedClient.Logs logs = first;
        int index = 0;
        long offset = 0;
        while (true) {
            // Read the state before copying: once it says ended, what is copied after is the job's last word.
            boolean ended = logs.state().equals("ended") || logs.state().equals("unknown");
            List<Path> files = logs.files();
            while (index < files.size()) {
                offset = copy(files.get(index), offset);
                if (index + 1 >= files.size()) {
                    break;
                }
                index++; // an attempt on other GPUs started: its log follows
                offset = 0;
            }
            if (ended) {
                return 0;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
            logs = c.logs(no);
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

    /** Copies a file from a byte offset to stdout; @return the offset after what was copied. */
    private long copy(Path f, long from) {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f)) {
            ch.position(from);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64 * 1024);
            long at = from;
            int n;
            while ((n = ch.read(buf)) > 0) {
                out.write(buf.array(), 0, n);
                at += n;
                buf.clear();
            }
            out.flush();
            return at;
        } catch (java.io.IOException e) {
            err.println("gpusched: cannot read " + f + ": " + e.getMessage());
            return from;
        }
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

    /** The row's owner, at the end of its line: {@code   [alice]}; nothing when not known. */
    private static String owner(Map<String, Object> row) {
        return row.get("owner") == null ? "" : "   [" + row.get("owner") + "]";
    }

    @SuppressWarnings("unchecked")
    private void printInfo(Map<String, Object> snapshot, boolean json) {
        List<Map<String, Object>> gpus = (List<Map<String, Object>>) snapshot.get("gpus");
        List<?> paused = (List<?>) snapshot.get("paused_gpus");
        if (json) {
            out.println(io.gpusched.JsonEventWriter.valueToJson(Map.of("gpus", gpus, "paused_gpus", paused)));
            return;
        }
        for (Map<String, Object> g : gpus) {
            Object util = g.get("util_percent");
            out.println("gpu" + g.get("index") + "  " + g.get("name") + "  " + g.get("used_mib") + "/" + g.get("total_mib")
                    + " MiB used" + (util == null ? "" : ", " + util + "% busy") + (paused.contains(g.get("index"))
                    ? "  PAUSED" : "") + (Boolean.FALSE.equals(g.get("healthy")) ? "  UNHEALTHY" : ""));
        }
    }

    @SuppressWarnings("unchecked")
    private void printQueue(QueueView.Shown shown) {
        Map<String, Object> snapshot = shown.snapshot();
        Map<String, Object> board = (Map<String, Object>) snapshot.get("board");
        List<Map<String, Object>> running = (List<Map<String, Object>>) board.get("running");
        List<Map<String, Object>> pending = (List<Map<String, Object>>) board.get("pending");
        List<Map<String, Object>> done = new ArrayList<>((List<Map<String, Object>>) board.get("earlier"));
        done.addAll((List<Map<String, Object>>) board.get("done"));
        out.println(running.size() + " running, " + pending.size() + " pending, " + shown.finished() + " done"
                + (((List<?>) snapshot.get("paused_gpus")).isEmpty() ? "" : "; paused gpus " + snapshot.get("paused_gpus")));
        for (Map<String, Object> r : running) {
            out.println("▶ job " + r.get("no") + " gpu" + r.get("gpus") + " " + Math.round(((Number) r.get("elapsed_s"))
                    .doubleValue()) + "s, peak " + r.get("peak_mib") + " MiB — " + r.get("command") + owner(r));
        }
        for (Map<String, Object> p : pending) {
            Object mib = p.get("declared_mib");
            out.println("… job " + p.get("no") + " " + (mib == null ? "undeclared" : mib + " MiB")
                    + ", waits: " + p.get("reason") + " — " + p.get("command") + owner(p));
        }
        if (shown.leftOut() > 0) {
            out.println("  (" + shown.leftOut() + " earlier finished job" + (shown.leftOut() == 1 ? "" : "s")
                    + " not shown: gpusched queue --all)");
        }
        for (Map<String, Object> d : done) {
            out.println(("ok".equals(d.get("status")) ? "✓" : "✗") + " job " + d.get("no") + " " + d.get("status")
                    + " — " + d.get("command") + owner(d));
        }
    }
}
