package io.gpusched.cli;

import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/** {@code gpusched} entry point: runs {@link Cli} and exits with its code. */
public final class Main {
    private Main() {
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        utf8Output();
        java.util.Optional<String> lost = lostArgument(args, System.getProperty("sun.jnu.encoding", "UTF-8"));
        if (lost.isPresent()) {
            System.err.println("gpusched: " + lost.get());
            System.exit(Cli.USAGE);
        }
        // gpusched queue's common lines and --version first, before the hook and the CLI's dispatch are
        // loaded (issue #27): what Cli.run prints for them, and nothing else is needed.
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            System.out.println(Cli.versionLine());
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("queue")) {
            int code = QuickQueue.run(args, System.out, System.err);
            if (code != QuickQueue.DECLINED) {
                System.out.flush();
                System.exit(code);
            }
        }
        AtomicReference<Scheduler> running = new AtomicReference<>();
        AtomicReference<Runnable> detach = new AtomicReference<>();
        AtomicBoolean exiting = new AtomicBoolean();
        CountDownLatch cliReturned = new CountDownLatch(1);
        // Ctrl-C / SIGTERM: terminate running jobs (SIGTERM, grace, SIGKILL) and journal them before the JVM exits.
        // The JVM would then exit 130 for SIGINT but 143 for SIGTERM, which is also what a run whose job timed
        // out used to return; an interrupted run exits 130 whichever signal stopped it.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (exiting.get()) {
                return;
            }
            // A client following a job's log: Ctrl-C leaves the job running and is not a failure.
            Runnable d = detach.get();
            if (d != null) {
                d.run();
                System.out.flush();
                System.err.flush();
                Runtime.getRuntime().halt(0);
            }
            Scheduler s = running.get();
            if (s != null) {
                s.close();
                try {
                    // Let the CLI print its last line and close the backend (the sim's temp directory) first.
                    cliReturned.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.out.flush();
                System.err.flush();
                Runtime.getRuntime().halt(RunSummary.INTERRUPTED_EXIT);
            }
        }, "gpusched-shutdown"));
        int code = new Cli(System.out, System.err, running::set, detach::set).run(args);
        detach.set(null);
        cliReturned.countDown();
        exiting.set(true);
        running.set(null);
        System.exit(code);
    }

    /**
     * Standard output and error in UTF-8, whatever the locale: under none ({@code env -i}, {@code su -},
     * cron) Java 17 encodes them in ASCII and writes '?' for every other character, so {@code show --json}
     * changed a job's command {@code echo café} into {@code echo caf?}, in data a script reads (JSON is
     * UTF-8). Where the locale names another charset, each verb's text for people is made plain ASCII by
     * the verb itself ({@link LocaleText}, {@code queue}'s rule), its JSON not. Standard error holds only
     * gpusched's own words for people (its errors, which quote what the user typed, and {@code srun}'s
     * status lines; a job's output never passes through it, {@code srun}'s command has the terminal
     * itself), so it follows that rule here, for every verb at once. As the JDK makes them: a 128-byte
     * buffer, flushed at each line.
     */
    /**
     * The first argument the JVM could not read as it was typed: it decodes the command line in the locale's
     * charset ({@code sun.jnu.encoding}), and under one without the typed characters (ASCII under
     * {@code LANG=C}) each byte it cannot decode becomes U+FFFD. Such a path failed deep inside with a stack
     * trace, and a submitted command would have run with the replacement characters in place of what was
     * typed.
     *
     * @param args the command line as the JVM decoded it
     * @param charset the charset it was decoded in
     * @return the one-line refusal naming the argument and the fix; empty when every argument is as typed
     *     (always, under UTF-8, where U+FFFD may be typed)
     */
    static java.util.Optional<String> lostArgument(String[] args, String charset) {
        if (charset.equalsIgnoreCase("UTF-8") || charset.equalsIgnoreCase("UTF8")) {
            return java.util.Optional.empty();
        }
        for (int i = 0; i < args.length; i++) {
            if (args[i].indexOf('\uFFFD') >= 0) {
                String shown = args[i].replace('\uFFFD', '?');
                return java.util.Optional.of("argument " + (i + 1) + " ('" + io.gpusched.event.TerminalText.escape(
                        shown.length() > 80 ? shown.substring(0, 80) + "..." : shown) + "') holds characters the locale's"
                        + " charset (" + charset + ") cannot carry, so they were lost before gpusched saw them; run it"
                        + " under a UTF-8 locale, e.g. LC_ALL=C.UTF-8 gpusched ...");
            }
        }
        return java.util.Optional.empty();
    }

    private static void utf8Output() {
        System.setOut(new java.io.PrintStream(new java.io.BufferedOutputStream(
                new java.io.FileOutputStream(java.io.FileDescriptor.out), 128), true, java.nio.charset.StandardCharsets.UTF_8));
        System.setErr(LocaleText.of(new java.io.PrintStream(new java.io.BufferedOutputStream(
                new java.io.FileOutputStream(java.io.FileDescriptor.err), 128), true, java.nio.charset.StandardCharsets.UTF_8)));
    }
}
