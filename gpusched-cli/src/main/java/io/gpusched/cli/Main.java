package io.gpusched.cli;

import io.gpusched.Scheduler;
import java.util.concurrent.atomic.AtomicReference;

/** {@code gpusched} entry point: runs {@link Cli} and exits with its code. */
public final class Main {
    private Main() {
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        AtomicReference<Scheduler> running = new AtomicReference<>();
        // Ctrl-C / SIGTERM: terminate running jobs (SIGTERM, grace, SIGKILL) and journal them before the JVM exits.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Scheduler s = running.get();
            if (s != null) {
                s.close();
            }
        }, "gpusched-shutdown"));
        int code = new Cli(System.out, System.err, running::set).run(args);
        running.set(null);
        System.exit(code);
    }
}
