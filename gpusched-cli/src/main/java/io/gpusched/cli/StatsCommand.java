package io.gpusched.cli;

import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.Units;
import io.gpusched.journal.JournalEntries;
import io.gpusched.stats.JournalStats;
import io.gpusched.stats.Stats;
import io.gpusched.stats.StatsQuery;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import io.gpusched.protocol.Request;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * {@code gpusched stats [--since 7d] [--user U] [--json] [--plot FILE.svg] [--log-dir DIR]}: figures from
 * a scheduler's journal alone, whether or not it runs. The journal is only read: never locked, created or
 * written, so this is safe beside a live scheduler.
 */
final class StatsCommand {
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("stats", "Figures from the journal of the scheduler"
                + " that uses DIR, running or not (the journal is only read): jobs by final status, GPU-hours (GPUs x run"
                + " time), waits from submission (or a file line's first sight) to first start, each GPU's share of the"
                + " period held by jobs, and how good VRAM declarations were, as the scheduler's verdicts judge them; in"
                + " all, then per user. Jobs-file lines belong to the journal file's owner (the user the scheduler ran"
                + " as): only submissions name their owner. Runs written before gpusched recorded times in its journal"
                + " lack them: they are left out, and said so. Exit 0 printed; 1 no journal in DIR, or it or the plot"
                + " file cannot be read or written; 2 bad command line.");
        s.addOption(ClientOptions.valued(new String[] {"--log-dir"}, "DIR", "the scheduler's log directory [gpusched_logs]"));
        s.addOption(ClientOptions.valued(new String[] {"--since"}, "DUR", "only the last DUR: a number with s, m, h or d,"
                + " as a jobs file's timeout (7d, 12h, 1.5h) [the whole journal, from its first time]"));
        s.addOption(ClientOptions.valued(new String[] {"--user"}, "U", "only U's jobs; me: yours [everyone]"));
        s.addOption(ClientOptions.valued(new String[] {"--tolerance"}, "F", "band of a within verdict, as the scheduler's"
                + " --tolerance [0.10]"));
        s.addOption(ClientOptions.flag(new String[] {"--json"}, "print the same as one JSON object (durations in seconds,"
                + " shares in [0, 1])"));
        s.addOption(ClientOptions.valued(new String[] {"--plot"}, "FILE.svg", "also write GPU memory over the period as an"
                + " SVG chart: a lane per GPU, a bar per job run as high as its peak (or declaration), coloured by owner"
                + " (not over the socket)"));
        s.addOption(ClientOptions.valued(new String[] {"--socket"}, "PATH", "ask the daemon at PATH instead of reading"
                + " the journal (also used when the journal is not readable: a root daemon's; then only your own jobs"
                + " unless you are an admin) [GPUSCHED_SOCKET, else /run/gpusched/gpusched.sock when there, else this"
                + " user's]"));
        return s;
    }

    private final PrintStream out;
    private final PrintStream err;
    private final InstantSource clock;
    private final ZoneId zone;
    private final Function<Path, String> ownerOf;

    StatsCommand(PrintStream out, PrintStream err) {
        this(out, err, InstantSource.system(), ZoneId.systemDefault(), StatsCommand::fileOwner);
    }

    /**
     * @param clock the period ends at its instant
     * @param zone the zone text and plot times are shown in
     * @param ownerOf the owner of a journal file: whom its jobs-file lines belong to
     */
    StatsCommand(PrintStream out, PrintStream err, InstantSource clock, ZoneId zone, Function<Path, String> ownerOf) {
        this.out = out;
        this.err = err;
        this.clock = clock;
        this.zone = zone;
        this.ownerOf = ownerOf;
    }

    /** The parsed command line. */
    private record Args(Path logDir, Optional<Duration> since, Optional<String> user, double tolerance, boolean json,
                        Optional<Path> plot, Optional<Path> socket, boolean toleranceGiven) {
    }

    int run(String... argv) {
        Args a;
        try {
            Optional<Args> parsed = parse(argv);
            if (parsed.isEmpty()) {
                out.print(ClientOptions.usage(spec()));
                return 0;
            }
            a = parsed.get();
        } catch (UsageException e) {
            err.println("gpusched stats: " + e.getMessage());
            return Cli.USAGE;
        }
        Path journal = a.logDir().resolve("journal.jsonl");
        if (a.socket().isPresent()) {
            return served(a, a.socket().get(), Optional.empty());
        }
        if (!Files.isDirectory(a.logDir())) {
            err.println("gpusched stats: " + (Files.exists(a.logDir()) ? a.logDir() + " is not a directory"
                    : "no log directory " + a.logDir()) + "; give the scheduler's with --log-dir DIR");
            return 1;
        }
        JournalEntries entries;
        try {
            entries = JournalEntries.read(journal);
        } catch (NoSuchFileException e) {
            err.println("gpusched stats: no journal in " + a.logDir() + " (" + journal + " is missing: no scheduler has"
                    + " run there); give the scheduler's log directory with --log-dir DIR");
            return 1;
        } catch (AccessDeniedException e) {
            if (a.plot().isPresent()) {
                err.println("gpusched stats: cannot read " + journal + ": permission denied, and --plot is not served"
                        + " by the daemon (it writes no file a user names); leave out --plot to ask the daemon, or run as"
                        + " a user who may read the journal (its owner, or root)");
                return 1;
            }
            // A root daemon's journal (0600): the daemon reads it and answers with what this user may see.
            return served(a, GpuschedClient.defaultSocket(), Optional.of(journal));
        } catch (IOException e) {
            err.println("gpusched stats: cannot read " + journal + ": " + e.getMessage() + "; check the file, or give"
                    + " another log directory with --log-dir DIR");
            return 1;
        }
        long now = clock.millis();
        OptionalLong from = a.since().isPresent() ? OptionalLong.of(now - a.since().get().toMillis()) : OptionalLong.empty();
        Optional<String> user = a.user().map(u -> u.equals("me") ? System.getProperty("user.name", "?") : u);
        Stats stats = JournalStats.compute(entries.entries(),
                new StatsQuery(from, now, user, a.tolerance(), ownerOf.apply(journal)));
        if (a.plot().isPresent()) {
            try {
                Files.writeString(a.plot().get(), StatsPlot.render(stats, zone), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("gpusched stats: cannot write plot " + a.plot().get() + ": " + reason(e)
                        + "; give --plot a path in a writable directory");
                return 1;
            }
        }
        entries.warnings().forEach(w -> err.println("gpusched stats: warning: " + w));
        if (a.json()) {
            out.println(StatsJson.render(stats, journal, a.plot(), entries.warnings()));
        } else {
            PrintStream text = LocaleText.of(out);
            text.print(StatsText.render(stats, zone));
            a.plot().ifPresent(p -> text.println("plot written to " + p + ": " + stats.gpus().size() + " GPU lane"
                    + (stats.gpus().size() == 1 ? "" : "s") + ", " + stats.bars().size() + " bar"
                    + (stats.bars().size() == 1 ? "" : "s")));
        }
        return 0;
    }

    /**
     * The figures as the daemon at {@code socket} prints them from its journal: on a root daemon, only this
     * user's jobs unless they are root or an admin (who may ask for any {@code --user}, or everyone).
     */
    private int served(Args a, Path socket, Optional<Path> unreadable) {
        Optional<String> user = a.user().map(u -> u.equals("me") ? System.getProperty("user.name", "?") : u);
        Request.Stats req = new Request.Stats(a.since().map(d -> OptionalInt.of((int) Math.max(1, d.toSeconds())))
                .orElse(OptionalInt.empty()), user, a.toleranceGiven() ? OptionalDouble.of(a.tolerance())
                : OptionalDouble.empty(), a.json(), Optional.of(zone.getId()));
        GpuschedClient.StatsText answer;
        try (GpuschedClient c = GpuschedClient.connect(socket)) {
            answer = c.stats(req);
        } catch (ServiceException e) {
            if (unreadable.isPresent() && (e.code().equals("unreachable") || e.code().equals("untrusted"))) {
                err.println("gpusched stats: cannot read " + unreadable.get() + ": permission denied, and no gpusched daemon"
                        + " answers at " + socket + " to read it for you; run as a user who may read it (its owner, or"
                        + " root), or name the daemon's socket with --socket PATH");
                return 1;
            }
            err.println("gpusched stats: " + (e.code().equals("unknown_op")
                    ? "the daemon at " + socket + " is older than stats over its socket; ask an admin for the figures,"
                    + " or to upgrade it" : e.getMessage()));
            return 1;
        }
        answer.warnings().forEach(w -> err.println("gpusched stats: warning: " + w));
        (a.json() ? out : LocaleText.of(out)).print(answer.text());
        return 0;
    }

    /** @return the arguments; empty for {@code --help} */
    private static Optional<Args> parse(String... argv) {
        picocli.CommandLine.ParseResult r = ClientOptions.parse(spec(), "stats", java.util.List.of(argv), false);
        if (r.isUsageHelpRequested()) {
            return Optional.empty();
        }
        Path logDir = Path.of(r.hasMatchedOption("--log-dir") ? nonEmpty("--log-dir", r.matchedOptionValue("--log-dir", ""))
                : "gpusched_logs");
        Optional<Duration> since = Optional.empty();
        if (r.hasMatchedOption("--since")) {
            String v = r.matchedOptionValue("--since", "");
            since = Optional.of(Units.parseDuration(v.strip()).orElseThrow(() -> Units.isDurationForm(v.strip())
                    ? CliArgs.durationOutOfRange("--since", v, Optional.empty(), "")
                    : new UsageException("--since " + v
                    + " is not a duration; give a number with s, m, h or d (up to 3650d), e.g. --since 7d")));
        }
        Optional<String> user = r.hasMatchedOption("--user")
                ? Optional.of(nonEmpty("--user", r.matchedOptionValue("--user", ""))) : Optional.empty();
        double tolerance = r.hasMatchedOption("--tolerance") ? tolerance(r.matchedOptionValue("--tolerance", ""))
                : SchedulerOptions.defaults().tolerance();
        Optional<Path> plot = r.hasMatchedOption("--plot")
                ? Optional.of(Path.of(nonEmpty("--plot", r.matchedOptionValue("--plot", "")))) : Optional.empty();
        Optional<Path> socket = r.hasMatchedOption("--socket")
                ? Optional.of(Path.of(nonEmpty("--socket", r.matchedOptionValue("--socket", "")))) : Optional.empty();
        if (socket.isPresent() && plot.isPresent()) {
            throw new UsageException("--plot is not served over the daemon's socket (the daemon writes no file a user"
                    + " names); leave out --plot, or read the journal with --log-dir DIR as a user who may");
        }
        return Optional.of(new Args(logDir, since, user, tolerance, r.matchedOptionValue("--json", false), plot, socket,
                r.hasMatchedOption("--tolerance")));
    }

    private static String nonEmpty(String option, String v) {
        if (v.isEmpty()) {
            throw new UsageException(option + " needs a value (see gpusched stats --help)");
        }
        return v;
    }

    private static double tolerance(String v) {
        try {
            double t = Double.parseDouble(v);
            if (t >= 0 && t < 1) {
                return t;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new UsageException("--tolerance " + v + " is not a share in [0, 1); e.g. --tolerance 0.1");
    }

    /** The user a journal file belongs to: the scheduler that wrote it ran as them. */
    private static String fileOwner(Path journal) {
        try {
            return Files.getOwner(journal).getName();
        } catch (IOException | UnsupportedOperationException e) {
            return System.getProperty("user.name", "?");
        }
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return String.valueOf(e.getMessage());
    }
}
