package io.gpusched.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Finds processes a scheduler run left alive: any process (zombies aside) whose environment carries one
 * of the run's {@code GPUSCHED_JOB_KEY} values, or that sits in a session one of its jobs led.
 */
final class Leftovers {
    private Leftovers() {
    }

    /**
     * Polls until no such process is left or the wait is over; processes killed as the run ended may
     * take a moment to go.
     *
     * @return descriptions of the survivors; empty when none
     */
    static List<String> awaitNone(Collection<String> keys, Collection<Long> sessions, Duration wait)
            throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        List<String> found = scan(keys, sessions);
        while (!found.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            found = scan(keys, sessions);
        }
        return found;
    }

    static List<String> scan(Collection<String> keys, Collection<Long> sessions) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path proc : procs) {
                describeIfLeftover(proc, keys, sessions).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc: " + e, e);
        }
        return out;
    }

    private static java.util.Optional<String> describeIfLeftover(Path proc, Collection<String> keys, Collection<Long> sessions) {
        try {
            java.util.Optional<ProcSessions.Stat> stat = ProcSessions.stat(proc);
            if (stat.isEmpty()) {
                return java.util.Optional.empty();
            }
            long session = stat.get().session();
            String env = new String(Files.readAllBytes(proc.resolve("environ")), StandardCharsets.UTF_8);
            String key = null;
            for (String var : env.split("\0")) {
                if (var.startsWith("GPUSCHED_JOB_KEY=") && keys.contains(var.substring("GPUSCHED_JOB_KEY=".length()))) {
                    key = var.substring("GPUSCHED_JOB_KEY=".length());
                }
            }
            if (key == null && !sessions.contains(session)) {
                return java.util.Optional.empty();
            }
            String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ').strip();
            return java.util.Optional.of("pid " + proc.getFileName() + " session " + session + " key " + key + ": " + cmdline);
        } catch (IOException | RuntimeException gone) {
            // Exited while being read, or not ours to read.
            return java.util.Optional.empty();
        }
    }
}
