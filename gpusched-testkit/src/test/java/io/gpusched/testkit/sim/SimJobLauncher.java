package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/** Starts simulated jobs the way a scheduler would, and waits on backend snapshots without fixed sleeps. */
final class SimJobLauncher {
    /** Long enough for a JVM start on a loaded two-core machine; tests normally finish far sooner. */
    static final Duration PATIENCE = Duration.ofSeconds(15);

    /** The two implementations of the simulated job, which must behave the same. */
    enum Impl {
        NATIVE, JAVA;

        List<String> command() {
            return switch (this) {
                case NATIVE -> SimJobs.nativeCommand().orElseThrow(
                        () -> new AssertionError("the native simjob is missing or does not run here"));
                case JAVA -> SimJobs.javaCommand();
            };
        }
    }

    private SimJobLauncher() {
    }

    /**
     * @param visibleDevices CUDA_VISIBLE_DEVICES, or empty to leave it unset
     */
    static Process start(Impl impl, Path simDir, Optional<String> visibleDevices, Path stderr, String... flags)
            throws IOException {
        List<String> cmd = new ArrayList<>(impl.command());
        cmd.addAll(List.of(flags));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile());
        pb.environment().put(SimulatedGpuBackend.SIM_DIR_ENV, simDir.toString());
        pb.environment().remove("CUDA_VISIBLE_DEVICES");
        visibleDevices.ifPresent(v -> pb.environment().put("CUDA_VISIBLE_DEVICES", v));
        return pb.start();
    }

    /** Polls until a snapshot satisfies the condition; fails with the last snapshot after {@link #PATIENCE}. */
    static GpuSnapshot awaitSnapshot(GpuBackend backend, String what, Predicate<GpuSnapshot> condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        GpuSnapshot last = backend.snapshot();
        while (!condition.test(last)) {
            if (System.nanoTime() > deadline) {
                fail("waited " + PATIENCE.toSeconds() + " s for " + what + "; last snapshot: " + last);
            }
            pause();
            last = backend.snapshot();
        }
        return last;
    }

    static void pause() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    static long usedBy(GpuSnapshot s, long pid, int gpu) {
        return s.processes().stream().filter(p -> p.pid() == pid && p.gpu() == gpu)
                .mapToLong(io.gpusched.gpu.GpuProcess::usedMib).sum();
    }

    static boolean hasProcess(GpuSnapshot s, long pid) {
        return s.processes().stream().anyMatch(p -> p.pid() == pid);
    }
}
