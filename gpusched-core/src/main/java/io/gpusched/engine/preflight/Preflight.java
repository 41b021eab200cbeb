package io.gpusched.engine.preflight;

import io.gpusched.engine.spawn.JobLauncher;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.NativeBinary;
import io.gpusched.engine.spawn.OwnerLaunch;
import io.gpusched.engine.spawn.SpawnServer;

import io.gpusched.journal.StateDirectory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a scheduler needs of this machine besides its GPUs, looked up the way the scheduler itself looks
 * when it starts, for {@code gpusched doctor}: {@code setsid}, and the C helpers built into this jar.
 * The state directory's rules are {@link StateDirectory#inspect}'s.
 */
public final class Preflight {
    private Preflight() {
    }

    /** @return {@code setsid} (util-linux) where a scheduler would find it; empty when it would refuse to start */
    public static Optional<Path> setsid() {
        return JobLauncher.findSetsid();
    }

    /**
     * One of the C helpers in this jar, tried.
     *
     * @param name {@code gpusched-spawnd} or {@code gpusched-runas}
     * @param present whether this jar carries it (a build without a C compiler has none)
     * @param runs whether it ran here and answered as it should
     * @param detail what went wrong, or what it answered
     */
    public record Helper(String name, boolean present, boolean runs, String detail) {
    }

    /** @return whether this scheduler runs submissions as their owners (as root), so needs gpusched-runas */
    public static boolean runsAsOwners() {
        return JobOutput.RUNS_AS_OWNERS;
    }

    /**
     * Puts each helper where a scheduler would run it from and runs it once, harmlessly: the spawn server
     * with {@code --probe}, gpusched-runas with no argument (it prints its usage line and exits 126, doing nothing).
     *
     * @param runsDir where a scheduler extracts them ({@code LOGDIR/runs}) when it exists and is this
     *     user's to write; else a temporary directory, removed afterwards
     * @return both helpers, spawn server first
     */
    public static List<Helper> helpers(Optional<Path> runsDir) {
        Path dir;
        Optional<Path> temporary = Optional.empty();
        try {
            if (runsDir.isPresent() && Files.isDirectory(runsDir.get()) && Files.isWritable(runsDir.get())) {
                dir = runsDir.get();
            } else {
                dir = Files.createTempDirectory("gpusched-doctor");
                temporary = Optional.of(dir);
            }
        } catch (IOException e) {
            return List.of(new Helper(SpawnServer.RESOURCE, true, false, "cannot make a directory to try it in: " + e.getMessage()),
                    new Helper(OwnerLaunch.RESOURCE, true, false, "cannot make a directory to try it in: " + e.getMessage()));
        }
        try {
            String where = temporary.isPresent() ? "runs (tried from a temporary directory in " + dir.getParent() + ")"
                    : "runs from " + dir;
            return List.of(helper(SpawnServer.RESOURCE, dir, "--probe", 0, "gpusched-spawnd 1", where),
                    helper(OwnerLaunch.RESOURCE, dir, null, 126, "usage: gpusched-runas", where));
        } finally {
            temporary.ifPresent(Preflight::remove);
        }
    }

    private static Helper helper(String name, Path dir, String arg, int code, String answer, String where) {
        if (NativeBinary.class.getResource(name) == null) {
            return new Helper(name, false, false, "not in this jar: it was built without a C compiler");
        }
        Optional<Path> exe = NativeBinary.extract(name, dir);
        if (exe.isEmpty()) {
            return new Helper(name, true, false, "cannot be written to " + dir);
        }
        try {
            ProcessBuilder pb = arg == null ? new ProcessBuilder(exe.get().toString()) : new ProcessBuilder(exe.get().toString(), arg);
            Process p = pb.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            String said = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Helper(name, true, false, exe.get() + " did not answer within 10 s");
            }
            boolean ok = p.exitValue() == code && said.contains(answer);
            return new Helper(name, true, ok, ok ? where : exe.get() + " exited " + p.exitValue() + ": " + said);
        } catch (IOException e) {
            // e.g. a directory mounted noexec
            return new Helper(name, true, false, "cannot run " + exe.get() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Helper(name, true, false, "interrupted");
        }
    }

    private static void remove(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
