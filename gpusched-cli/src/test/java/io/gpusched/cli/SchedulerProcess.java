package io.gpusched.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real CLI scheduler in its own JVM, started the way {@code bin/gpusched} starts it, so a test can
 * SIGKILL or SIGTERM it like a user's machine would. Its stdout and stderr are read line by line on a
 * thread; an optional trigger kills it from that thread the moment a matching line is read, before
 * any later line, to hit the instants right after an acknowledgement.
 */
final class SchedulerProcess implements AutoCloseable {
    /** Hang guard for one scheduler's life; never a timing assertion. */
    static final Duration HANG_GUARD = Duration.ofSeconds(120);

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Predicate<String> killOn;
    private final Thread reader;
    private volatile String killedAfter;

    private SchedulerProcess(Process process, Predicate<String> killOn) {
        this.process = process;
        this.killOn = killOn;
        this.reader = new Thread(this::read, "scheduler-" + process.pid() + "-stdout");
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts {@code gpusched ARGS} with this JVM's class path, in {@code workDir} (where jobs run).
     *
     * @param env added to the inherited environment
     * @param killOn SIGKILL the scheduler right after reading the first line this accepts
     */
    static SchedulerProcess start(Path workDir, List<String> args, Map<String, String> env, Predicate<String> killOn) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:-UsePerfData",
                "-Djdk.lang.Process.launchMechanism=VFORK", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        try {
            return new SchedulerProcess(pb.start(), killOn);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static SchedulerProcess start(Path workDir, List<String> args, Map<String, String> env) {
        return start(workDir, args, env, l -> false);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                // drop the "[HH:MM:SS] " prefix
                String l = line.length() > 11 && line.charAt(0) == '[' && line.charAt(9) == ']' ? line.substring(11) : line;
                synchronized (lines) {
                    lines.add(l);
                }
                if (killedAfter == null && killOn.test(l)) {
                    process.toHandle().destroyForcibly();
                    killedAfter = l;
                }
            }
        } catch (IOException e) {
            // the pipe closes when the process dies; every line read so far is kept
        }
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** @return the line after which the trigger killed it, if it did */
    Optional<String> killedAfter() {
        return Optional.ofNullable(killedAfter);
    }

    /** @return every line read so far, without the time prefix */
    List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    String output() {
        return String.join("\n", lines());
    }

    /** SIGKILL to the scheduler's JVM only: its jobs live in their own sessions and keep running. */
    void kill() throws InterruptedException {
        // through the handle: Process.destroy* would also close our end of its output, losing lines in the pipe
        process.toHandle().destroyForcibly();
        awaitExit();
    }

    /** SIGTERM, as Ctrl-C or a service manager would send. */
    void terminate() {
        process.toHandle().destroy();
    }

    /** Waits (hang guard only) until it has exited and its output is read to the end; returns its exit code. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the scheduler did not exit within " + HANG_GUARD + " (hang guard); output:\n" + output());
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** Waits until a line matches (hang guard only); fails with the output if it exits or hangs first. */
    String await(Predicate<String> matches, String what) throws InterruptedException {
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> hit = lines().stream().filter(matches).findFirst();
            if (hit.isPresent()) {
                return hit.get();
            }
            if (!process.isAlive()) {
                reader.join(TimeUnit.SECONDS.toMillis(10));
                hit = lines().stream().filter(matches).findFirst();
                if (hit.isPresent()) {
                    return hit.get();
                }
                throw new AssertionError("the scheduler exited (" + process.exitValue() + ") before a line " + what
                        + ":\n" + output());
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no line " + what + " within " + HANG_GUARD + " (hang guard):\n" + output());
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
