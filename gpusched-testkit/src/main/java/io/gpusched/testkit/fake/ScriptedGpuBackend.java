package io.gpusched.testkit.fake;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A GPU backend whose state a unit test sets directly, with failure injection. The test thread may
 * change it while a scheduler thread calls {@link #snapshot()}; every method is thread-safe and each
 * snapshot is consistent.
 *
 * <pre>{@code
 * ScriptedGpuBackend gpus = ScriptedGpuBackend.withGpus(2, 24_000)
 *         .used(0, 3_000)            // memory no listed process accounts for
 *         .process(1, 4242, 8_000);  // GPU 1 now reports 8000 MiB used
 * gpus.failNextSnapshots(2);        // the next two snapshot() calls throw BackendException
 * }</pre>
 *
 * <p>A GPU's reported used memory is its {@link #used unaccounted usage} plus its processes, clamped
 * at its total, so adding or removing a process changes the GPU's usage as on real hardware.
 *
 * <p>Why one long file: one fake driver whose every scripted fault (hangs, errors, lost GPUs, processes)
 * must act on the same state the snapshots report.
 */
public final class ScriptedGpuBackend implements GpuBackend {
    private final SortedMap<Integer, Gpu> gpus = new TreeMap<>();
    /** Process to MiB, in insertion order. */
    private final Map<ProcessKey, Long> processes = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private int failuresLeft;
    private boolean failAlways;
    private int snapshots;
    private int failedSnapshots;
    private boolean closed;

    private record Gpu(long totalMib, long unaccountedMib, OptionalInt utilPercent, boolean healthy) {
    }

    private record ProcessKey(int gpu, long pid) {
    }

    private ScriptedGpuBackend() {
    }

    /**
     * @param count how many GPUs, indices 0 to {@code count - 1}; at least 1
     * @param totalMib memory of each in MiB, at least 1
     * @return idle healthy GPUs with unknown utilisation
     * @throws IllegalArgumentException on a count or size below 1
     */
    public static ScriptedGpuBackend withGpus(int count, long totalMib) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least 1 GPU, got " + count);
        }
        ScriptedGpuBackend b = new ScriptedGpuBackend();
        for (int i = 0; i < count; i++) {
            b.gpu(i, totalMib);
        }
        return b;
    }

    /**
     * Adds a GPU, or replaces one's total, e.g. to script sparse indices.
     *
     * @param index GPU index, at least 0
     * @param totalMib its memory in MiB, at least 1
     * @return this backend
     */
    public synchronized ScriptedGpuBackend gpu(int index, long totalMib) {
        if (index < 0 || totalMib < 1) {
            throw new IllegalArgumentException("need index >= 0 and totalMib >= 1, got " + index + ", " + totalMib);
        }
        Gpu old = gpus.get(index);
        gpus.put(index, old == null ? new Gpu(totalMib, 0, OptionalInt.empty(), true)
                : new Gpu(totalMib, old.unaccountedMib, old.utilPercent, old.healthy));
        return this;
    }

    /**
     * Sets memory in use on a GPU that no listed process accounts for (another container's process,
     * driver overhead). Reported usage is this plus the GPU's processes.
     *
     * @param gpu an existing GPU index
     * @param mib MiB, at least 0
     * @return this backend
     */
    public synchronized ScriptedGpuBackend used(int gpu, long mib) {
        nonNegative("mib", mib);
        Gpu g = existing(gpu);
        gpus.put(gpu, new Gpu(g.totalMib, mib, g.utilPercent, g.healthy));
        return this;
    }

    /**
     * @param gpu an existing GPU index
     * @param percent utilisation 0–100
     * @return this backend
     */
    public synchronized ScriptedGpuBackend util(int gpu, int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("utilisation must be 0-100, got " + percent);
        }
        Gpu g = existing(gpu);
        gpus.put(gpu, new Gpu(g.totalMib, g.unaccountedMib, OptionalInt.of(percent), g.healthy));
        return this;
    }

    /**
     * @param gpu an existing GPU index
     * @param healthy false to report the GPU lost or unusable
     * @return this backend
     */
    public synchronized ScriptedGpuBackend healthy(int gpu, boolean healthy) {
        Gpu g = existing(gpu);
        gpus.put(gpu, new Gpu(g.totalMib, g.unaccountedMib, g.utilPercent, healthy));
        return this;
    }

    /**
     * Adds a compute process, or sets the usage of the one with this pid on this GPU.
     *
     * @param gpu an existing GPU index
     * @param pid process id, at least 0
     * @param mib its memory on that GPU in MiB, at least 0
     * @return this backend
     */
    public synchronized ScriptedGpuBackend process(int gpu, long pid, long mib) {
        existing(gpu);
        nonNegative("pid", pid);
        nonNegative("mib", mib);
        processes.put(new ProcessKey(gpu, pid), mib);
        return this;
    }

    /**
     * @param pid a process id
     * @return this backend, without that process on any GPU (as after it exits)
     */
    public synchronized ScriptedGpuBackend removeProcess(long pid) {
        processes.keySet().removeIf(key -> key.pid() == pid);
        return this;
    }

    /** @return this backend, without any process */
    public synchronized ScriptedGpuBackend clearProcesses() {
        processes.clear();
        return this;
    }

    /**
     * @param text a warning every following snapshot carries, until {@link #clearWarnings()}
     * @return this backend
     */
    public synchronized ScriptedGpuBackend warning(String text) {
        warnings.add(text);
        return this;
    }

    /** @return this backend, without warnings */
    public synchronized ScriptedGpuBackend clearWarnings() {
        warnings.clear();
        return this;
    }

    /**
     * @param name variable name
     * @param value its value
     * @return this backend, whose {@link #jobEnvironment()} now holds that variable
     */
    public synchronized ScriptedGpuBackend environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /**
     * @param n how many of the next {@link #snapshot()} calls throw {@link BackendException}; replaces
     *     any count still pending
     * @return this backend
     */
    public synchronized ScriptedGpuBackend failNextSnapshots(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("failure count must be >= 0, got " + n);
        }
        failuresLeft = n;
        return this;
    }

    /**
     * @param fail true to make every {@link #snapshot()} throw until called with false
     * @return this backend
     */
    public synchronized ScriptedGpuBackend failAlways(boolean fail) {
        failAlways = fail;
        return this;
    }

    /** @return how many times {@link #snapshot()} was called, failed calls included */
    public synchronized int snapshotCount() {
        return snapshots;
    }

    /** @return how many {@link #snapshot()} calls threw an injected failure */
    public synchronized int failedSnapshotCount() {
        return failedSnapshots;
    }

    /**
     * Waits until {@link #snapshot()} has been called at least {@code count} times in all, e.g. to
     * know a scheduler thread has seen a change.
     *
     * @param count calls to wait for
     * @param timeout the longest wait
     * @return true when reached, false on timeout
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public synchronized boolean awaitSnapshotCount(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (snapshots < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** @return true once {@link #close()} was called */
    public synchronized boolean isClosed() {
        return closed;
    }

    /**
     * @return the scripted state now
     * @throws BackendException when a failure was injected ({@link #failNextSnapshots},
     *     {@link #failAlways}) or after {@link #close()}
     */
    @Override
    public synchronized GpuSnapshot snapshot() {
        snapshots++;
        notifyAll();
        if (closed) {
            throw new BackendException("scripted backend is closed");
        }
        if (failAlways || failuresLeft > 0) {
            if (failuresLeft > 0) {
                failuresLeft--;
            }
            failedSnapshots++;
            throw new BackendException("scripted snapshot failure " + failedSnapshots);
        }
        Map<Integer, Long> processMib = new TreeMap<>();
        List<GpuProcess> list = new ArrayList<>();
        processes.forEach((key, mib) -> {
            processMib.merge(key.gpu(), mib, Long::sum);
            list.add(new GpuProcess(key.gpu(), key.pid(), mib));
        });
        List<GpuStat> stats = new ArrayList<>();
        gpus.forEach((index, g) -> {
            long used = Math.min(g.totalMib, g.unaccountedMib + processMib.getOrDefault(index, 0L));
            stats.add(new GpuStat(index, Optional.empty(), "scripted", Optional.empty(), g.totalMib, used,
                    g.utilPercent, g.healthy));
        });
        return new GpuSnapshot(stats, list, warnings);
    }

    /** @return e.g. {@code scripted (2 GPUs)} */
    @Override
    public synchronized String describe() {
        return "scripted (" + gpus.size() + (gpus.size() == 1 ? " GPU)" : " GPUs)");
    }

    /** @return the variables set with {@link #environment} */
    @Override
    public synchronized Map<String, String> jobEnvironment() {
        return Map.copyOf(environment);
    }

    /** Marks the backend closed; later snapshots throw. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
    }

    private Gpu existing(int gpu) {
        Gpu g = gpus.get(gpu);
        if (g == null) {
            throw new IllegalArgumentException("no scripted GPU " + gpu + "; GPUs are " + gpus.keySet());
        }
        return g;
    }

    private static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + value);
        }
    }
}
