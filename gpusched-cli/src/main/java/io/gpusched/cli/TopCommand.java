package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
    static final String HELP = String.join("\n",
            "usage: gpusched top [--socket PATH | --log-dir DIR] [--interval S]",
            "       gpusched top --once [--width N] [--height N]",
            "",
            "Watches a gpusched daemon or jobs-file run: per GPU a memory bar split by job (what each holds,",
            "then what it declared beyond that), others' use and the headroom, how busy it is, paused or",
            "unhealthy; the running and pending jobs with owners, priorities and why each waits; the latest",
            "results with their verdicts. Redrawn every --interval seconds [1] and when the terminal's size",
            "changes.",
            "",
            "keys: q quit   up/down or k/j select a job   c cancel it (asks y/n)",
            "      p pause / r resume a GPU (asks which; another user's job or a GPU needs an admin)",
            "",
            "--once prints one frame to stdout and exits: --width columns [$COLUMNS, else 100], --height rows",
            "[all]. The socket is found as for the other client verbs (see gpusched submit --help). Exit 0;",
            "1 when the daemon cannot be reached or goes away; 2 for a bad command line.");

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
            out.println(HELP);
            return 0;
        }
        TopRenderer.Glyphs glyphs = utf8() ? TopRenderer.Glyphs.UNICODE : TopRenderer.Glyphs.ASCII;
        try (GpuschedClient c = GpuschedClient.connect(o.socket().orElseGet(GpuschedClient::defaultSocket))) {
            if (o.once()) {
                int width = o.width().orElseGet(TopCommand::columnsFromEnvironment);
                TopRenderer.View view = new TopRenderer.View(width, o.height().orElse(Integer.MAX_VALUE),
                        OptionalInt.empty(), Optional.empty(), glyphs);
                TopRenderer.render(TopSnapshot.of(c.queue()), view).forEach(l -> out.println(l.plain()));
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

    private static Options parse(String[] argv) {
        Optional<Path> socket = Optional.empty();
        long interval = 1000;
        boolean once = false;
        OptionalInt width = OptionalInt.empty();
        OptionalInt height = OptionalInt.empty();
        for (int i = 1; i < argv.length; i++) {
            String a = argv[i];
            switch (a) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--socket" -> socket = Optional.of(Path.of(value(argv, ++i, a)));
                case "--log-dir" -> socket = Optional.of(Path.of(value(argv, ++i, a)).resolve(ClientCommand.RUN_SOCKET));
                case "--once" -> once = true;
                case "--width" -> width = OptionalInt.of(whole(value(argv, ++i, a), a, 10));
                case "--height" -> height = OptionalInt.of(whole(value(argv, ++i, a), a, 1));
                case "--interval" -> {
                    String v = value(argv, ++i, a);
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
                default -> throw new UsageException("unknown option " + a + " for gpusched top (see gpusched top --help)");
            }
        }
        if (!once && (width.isPresent() || height.isPresent())) {
            throw new UsageException("--width and --height go with --once; live, top fits the terminal");
        }
        return new Options(socket, interval, once, width, height);
    }

    private static String value(String[] argv, int i, String option) {
        if (i >= argv.length) {
            throw new UsageException(option + " needs a value");
        }
        return argv[i];
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

    /** Whether the terminal takes UTF-8, as the locale says (the first of LC_ALL, LC_CTYPE, LANG set). */
    static boolean utf8() {
        for (String name : List.of("LC_ALL", "LC_CTYPE", "LANG")) {
            String v = System.getenv(name);
            if (v != null && !v.isEmpty()) {
                String l = v.toLowerCase(Locale.ROOT);
                return l.contains("utf-8") || l.contains("utf8");
            }
        }
        return false;
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
