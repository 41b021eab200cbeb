package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code gpusched top}: the daemon's (or a jobs-file run's) GPUs and queue, redrawn from its
 * {@code queue} answer every {@code --interval}, with keys to select, cancel, pause and resume; or,
 * with {@code --once}, one frame on stdout.
 *
 * <p>Why a little over 300 lines: its options, the refresh loop and the keys' questions share the
 * session's state; the drawing is {@link TopRenderer}'s and the terminal {@link Terminal}'s.
 */
final class TopCommand {
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("top", "Watches a gpusched daemon or jobs-file run:"
                + " per GPU a memory bar split by job (what each holds, then what it declared beyond that), others' use"
                + " and the headroom, how busy it is, paused or unhealthy; the running and pending jobs with owners,"
                + " priorities and why each waits; the latest results with their verdicts. Redrawn every --interval"
                + " seconds [1] and when the terminal's size changes. Keys: q quit; up/down or k/j select a job; c"
                + " cancel it (asks y/n); p pause / r resume a GPU (asks which; another user's job or a GPU needs an"
                + " admin). The socket is found as for the other client verbs (see gpusched submit --help). Exit 0;"
                + " 1 when the daemon cannot be reached or goes away; 2 for a bad command line.");
        s.addOption(ClientOptions.valued(new String[] {"--socket"}, "PATH", "the daemon's socket [GPUSCHED_SOCKET, else"
                + " /run/gpusched/gpusched.sock when there, else this user's]"));
        s.addOption(ClientOptions.valued(new String[] {"--log-dir"}, "DIR", "a jobs-file run's log directory: its"
                + " DIR/gpusched.sock"));
        s.addOption(ClientOptions.valued(new String[] {"--interval"}, "S", "redraw every S seconds, 0.1 to 60 [1]"));
        s.addOption(ClientOptions.flag(new String[] {"--once"}, "print one frame to stdout and exit"));
        s.addOption(ClientOptions.valued(new String[] {"--width"}, "N", "with --once: columns, 10 to 10000 [$COLUMNS,"
                + " else 100]"));
        s.addOption(ClientOptions.valued(new String[] {"--height"}, "N", "with --once: rows, 1 to 10000 [all]"));
        return s;
    }

    /** Wakes the loop when the terminal's size changed. */
    private static final int RESIZED = -2;

    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Runnable> onInterrupt;

    /**
     * @param onInterrupt told how to restore the terminal should SIGTERM, SIGHUP or SIGINT end the JVM
     *     while top draws, and {@code null} after
     */
    TopCommand(PrintStream out, PrintStream err, Consumer<Runnable> onInterrupt) {
        this.out = out;
        this.err = err;
        this.onInterrupt = onInterrupt;
    }

    /** The command line, parsed. */
    private record Options(Optional<Path> socket, long intervalMillis, boolean once, OptionalInt width,
                           OptionalInt height) {
    }

    int run(String[] argv) {
        Options o;
        try {
            o = parse(argv);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        if (o == null) {
            out.print(ClientOptions.usage(spec()));
            return 0;
        }
        TopRenderer.Glyphs glyphs = QueueTable.utf8Locale() ? TopRenderer.Glyphs.UNICODE : TopRenderer.Glyphs.ASCII;
        try (GpuschedClient c = GpuschedClient.connect(o.socket().orElseGet(GpuschedClient::defaultSocket))) {
            if (o.once()) {
                int width = o.width().orElseGet(TopCommand::columnsFromEnvironment);
                TopRenderer.View view = new TopRenderer.View(width, o.height().orElse(Integer.MAX_VALUE),
                        OptionalInt.empty(), Optional.empty(), glyphs);
                PrintStream frame = LocaleText.of(out);
                TopRenderer.render(TopSnapshot.of(c.queue()), view).forEach(l -> frame.println(l.plain()));
                return 0;
            }
            if (System.console() == null) {
                err.println("gpusched: top needs a terminal; gpusched top --once prints one frame");
                return 1;
            }
            return watch(c, o, glyphs);
        } catch (ServiceException e) {
            err.println("gpusched: " + e.getMessage());
            return 1;
        }
    }

    /** @return the options, or {@code null} for {@code --help} */
    private static Options parse(String[] argv) {
        picocli.CommandLine.ParseResult r = ClientOptions.parse(spec(), "top",
                List.of(argv).subList(1, argv.length), false);
        if (r.isUsageHelpRequested()) {
            return null;
        }
        Optional<Path> socket = r.hasMatchedOption("--socket") ? Optional.of(Path.of(r.<String>matchedOptionValue("--socket", "")))
                : r.hasMatchedOption("--log-dir")
                ? Optional.of(Path.of(r.<String>matchedOptionValue("--log-dir", "")).resolve(ClientCommand.RUN_SOCKET))
                : Optional.empty();
        boolean once = r.matchedOptionValue("--once", false);
        OptionalInt width = r.hasMatchedOption("--width")
                ? OptionalInt.of(whole(r.matchedOptionValue("--width", ""), "--width", 10)) : OptionalInt.empty();
        OptionalInt height = r.hasMatchedOption("--height")
                ? OptionalInt.of(whole(r.matchedOptionValue("--height", ""), "--height", 1)) : OptionalInt.empty();
        long interval = 1000;
        if (r.hasMatchedOption("--interval")) {
            String v = r.matchedOptionValue("--interval", "");
            double s;
            try {
                s = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                s = Double.NaN;
            }
            if (!(s >= 0.1 && s <= 60)) {
                throw new UsageException("--interval takes seconds from 0.1 to 60, e.g. --interval 0.5; got '" + v + "'");
            }
            interval = Math.round(s * 1000);
        }
        if (!once && (width.isPresent() || height.isPresent())) {
            throw new UsageException("--width and --height go with --once; live, top fits the terminal");
        }
        return new Options(socket, interval, once, width, height);
    }

    private static int whole(String v, String option, int least) {
        try {
            int n = Integer.parseInt(v);
            if (n >= least && n <= 10_000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new UsageException(option + " takes a whole number from " + least + " to 10000; got '" + v + "'");
    }

    private static int columnsFromEnvironment() {
        try {
            return Math.max(10, Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "100").strip()));
        } catch (NumberFormatException e) {
            return 100;
        }
    }

    /** The live view: until q, Ctrl-C, the end of input or the daemon going away; the terminal restored on each. */
    private int watch(GpuschedClient c, Options o, TopRenderer.Glyphs glyphs) {
        Terminal t;
        try {
            t = Terminal.open(glyphs == TopRenderer.Glyphs.UNICODE);
        } catch (IOException e) {
            err.println("gpusched: cannot take over the terminal: " + e.getMessage());
            return 1;
        }
        onInterrupt.accept(t::close);
        try {
            BlockingQueue<Integer> keys = new LinkedBlockingQueue<>();
            boolean resizes = Signals.handle("WINCH", () -> keys.offer(RESIZED));
            Thread reader = new Thread(() -> readKeys(keys), "gpusched-top-keys");
            reader.setDaemon(true);
            reader.start();
            return loop(c, o, glyphs, t, keys, resizes);
        } catch (ServiceException e) {
            t.close();
            err.println("gpusched: " + e.getMessage());
            return 1;
        } catch (IOException | RuntimeException e) {
            t.close();
            err.println("gpusched: top stopped: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            return 1;
        } finally {
            t.close();
            onInterrupt.accept(null);
        }
    }

    private static void readKeys(BlockingQueue<Integer> keys) {
        KeyReader r = new KeyReader(System.in);
        try {
            int k;
            do {
                k = r.next();
                keys.offer(k);
            } while (k != KeyReader.END);
        } catch (IOException e) {
            keys.offer(KeyReader.END);
        }
    }

    private int loop(GpuschedClient c, Options o, TopRenderer.Glyphs glyphs, Terminal t, BlockingQueue<Integer> keys,
                     boolean resizes) throws IOException {
        TopSession session = new TopSession(glyphs == TopRenderer.Glyphs.UNICODE);
        String noColor = System.getenv("NO_COLOR");
        boolean colour = noColor == null || noColor.isEmpty();
        Terminal.Size size = t.size();
        TopSnapshot snap = fetch(c, session);
        long nextPoll = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.intervalMillis());
        while (true) {
            TopRenderer.View view = new TopRenderer.View(size.columns(), size.rows(), session.selected(),
                    Optional.of(session.status(snap)), glyphs);
            t.draw(TopRenderer.render(snap, view), size, colour);
            Integer key;
            try {
                key = keys.poll(Math.max(0, nextPoll - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
            if (key == null) {
                snap = fetch(c, session);
                nextPoll = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.intervalMillis());
                if (!resizes) {
                    size = t.size();
                }
                continue;
            }
            switch (key) {
                case RESIZED -> size = t.size();
                case KeyReader.END -> {
                    return 0;
                }
                case KeyReader.NONE -> {
                    // a key top does not use
                }
                default -> {
                    TopSession.Action a = session.handle(key, snap);
                    if (a instanceof TopSession.Quit) {
                        return 0;
                    }
                    if (!(a instanceof TopSession.Redraw)) {
                        session.told(carryOut(c, a));
                        snap = fetch(c, session);
                    }
                }
            }
        }
    }

    /** Sends a cancel, pause or resume; @return what the daemon answered, in one line */
    private static Span carryOut(GpuschedClient c, TopSession.Action a) {
        try {
            if (a instanceof TopSession.Cancel x) {
                return new Span(ClientCommand.cancelled(x.no(), c.cancel(x.no())), Style.OK);
            }
            TopSession.Pause p = (TopSession.Pause) a;
            if (p.pause()) {
                c.pause(p.gpu());
                return new Span("gpu " + p.gpu() + " paused: running jobs continue, nothing new starts there", Style.OK);
            }
            c.resume(p.gpu());
            return new Span("gpu " + p.gpu() + " resumed", Style.OK);
        } catch (ServiceException e) {
            if (e.code().equals("unreachable")) {
                throw e;
            }
            return new Span("gpusched: " + DisplayWidth.clean(e.getMessage()), Style.ERROR);
        }
    }

    /** The queue now; before the scheduler's first round, an empty one and a line saying so. */
    private static TopSnapshot fetch(GpuschedClient c, TopSession session) {
        try {
            TopSnapshot s = TopSnapshot.of(c.queue());
            session.refresh(s);
            return s;
        } catch (ServiceException e) {
            if (!e.code().equals("not_ready")) {
                throw e;
            }
            session.told(new Span("the scheduler has not finished its first round yet", Style.DIM));
            return new TopSnapshot(List.of(), List.of(), List.of(), List.of());
        }
    }
}
