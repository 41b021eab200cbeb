package io.gpusched.engine.sim;

import io.gpusched.engine.loop.VirtualTime;
import io.gpusched.engine.proc.LoneSessions;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * GPUs and runs that exist only on a {@link VirtualTime}: the three ports an engine needs besides its
 * clock ({@link #driver()}, {@link #procs()}, {@link #backend()}), over one table of sessions.
 *
 * <p>A run is told its job's work by number ({@link #expect}) before it starts; it exits 0 when that
 * work is done on the virtual clock. A signal ends its session at once (exit 128 + signal, as a shell
 * reports it): a run stopped at its {@code timeout=} has done that much of its work, and its next attempt
 * (a time slice, {@code on-timeout=requeue}) does the rest; a run stopped before its limit (preempted,
 * cancelled) has its work to do anew. While a run lives, the backend reports its peak, if known, on each
 * of its GPUs (the engine budgets a peak within the declaration as the declaration, one above it as the
 * buffered peak); a GPU's used memory is the sum of those. No external process is modelled.
 *
 * <p>The driver and the process table are called on the loop's thread; the backend is read on the
 * engine's backend thread, so the session table is guarded.
 */
public final class SimulatedMachine {
    /** Where session ids start: far from real pids, as a stand-in needs no process. */
    private static final long FIRST_SESSION = 1L << 40;

    /** What a job does each time it runs. */
    private static final class Work {
        final Optional<Duration> limit;
        final OptionalLong peakMib;
        long remainingNanos;

        Work(Duration work, OptionalLong peakMib, Optional<Duration> limit) {
            this.remainingNanos = work.toNanos();
            this.peakMib = peakMib;
            this.limit = limit;
        }

        /** Whether its runs show on the GPUs: only a known, non-zero peak is read there. */
        boolean shows() {
            return peakMib.isPresent() && peakMib.getAsLong() > 0;
        }
    }

    /** A live run: its job, GPUs and start on the virtual clock. */
    private record Session(long sid, int no, List<Integer> gpus, long startNanos, CompletableFuture<Integer> exit) {
    }

    private final VirtualTime time;
    private final List<Long> gpuTotalsMib;
    private final Map<Integer, Work> work = new HashMap<>();
    private final Map<Long, Session> sessions = new HashMap<>();
    private long nextSid = FIRST_SESSION;
    /**
     * What the GPUs read while no run that shows on them (one with a known peak) started or ended since;
     * empty once one did. The engine reads the GPUs every round and at every sample, far more often than
     * such runs come and go, so the snapshot is built again only when it changed.
     */
    private Optional<GpuSnapshot> lastSnapshot = Optional.empty();

    /**
     * @param time the virtual clock runs exit on
     * @param gpuTotalsMib memory of each GPU in MiB, indexed from 0; at least one
     */
    public SimulatedMachine(VirtualTime time, List<Long> gpuTotalsMib) {
        if (gpuTotalsMib.isEmpty()) {
            throw new IllegalArgumentException("at least one GPU is needed");
        }
        this.time = time;
        this.gpuTotalsMib = List.copyOf(gpuTotalsMib);
    }

    /**
     * Says what job {@code no} does when it runs.
     *
     * @param no the job's display number, as the engine gave it
     * @param duration how long it runs in all, if nothing stops it
     * @param peakMib its per-GPU peak in MiB, if known
     * @param limit its {@code timeout=}: a stop at that limit keeps the work done (a time slice)
     */
    public synchronized void expect(int no, Duration duration, OptionalLong peakMib, Optional<Duration> limit) {
        work.put(no, new Work(duration, peakMib, limit));
        if (sessions.values().stream().anyMatch(s -> s.no() == no)) {
            lastSnapshot = Optional.empty(); // its live run shows the new peak
        }
    }

    /** @return how many runs are alive now */
    public synchronized int running() {
        return sessions.size();
    }

    /**
     * @return the driver: each start is a session that exits when its job's work is done; it reads only
     *     the launch's job number ({@code GPUSCHED_JOB_NO}) and GPUs, so it starts no process
     *     ({@link RunDriver#startsProcess()} is false) and is given nothing a process would read
     */
    public RunDriver driver() {
        return new RunDriver() {
            @Override
            public Started start(Launch launch) throws java.io.IOException {
                return SimulatedMachine.this.start(launch);
            }

            @Override
            public boolean startsProcess() {
                return false;
            }
        };
    }

    private synchronized RunDriver.Started start(RunDriver.Launch launch) throws java.io.IOException {
        int no = Integer.parseInt(launch.jobVars().get("GPUSCHED_JOB_NO"));
        Work w = work.get(no);
        if (w == null) {
            throw new java.io.IOException("the simulation knows no work for job " + no);
        }
        long sid = nextSid++;
        Session s = new Session(sid, no, launch.gpus(), time.nanos(), new CompletableFuture<>());
        sessions.put(sid, s);
        forgetSnapshotIfShown(w);
        time.at(time.nanos() + w.remainingNanos, () -> exit(s, 0));
        return new RunDriver.Started(sid, s.exit());
    }

    /** Ends a session with {@code status}, once; a run that ends on its own has done all its work. */
    private void exit(Session s, int status) {
        synchronized (this) {
            if (sessions.remove(s.sid()) == null) {
                return; // stopped earlier: its scheduled exit finds nothing
            }
            Work w = work.get(s.no());
            forgetSnapshotIfShown(w);
            long ran = time.nanos() - s.startNanos();
            if (status == 0) {
                w.remainingNanos = 0;
            } else if (w.limit.isPresent() && ran >= w.limit.get().toNanos()) {
                w.remainingNanos = Math.max(0, w.remainingNanos - ran); // a time slice: the rest is left
            }
        }
        s.exit().complete(status); // outside the lock: the engine's reaction runs on this thread
    }

    /**
     * A run of this work started or ended: the GPUs read otherwise from now on if it shows on them
     * ({@link Work#shows}); a run that does not leaves them as they were.
     */
    private void forgetSnapshotIfShown(Work w) {
        if (w.shows()) {
            lastSnapshot = Optional.empty();
        }
    }

    /** @return the process table: a session per live run, each its own only member */
    public ProcTable procs() {
        return new Procs();
    }

    /** @return the GPUs: each run's known peak on each of its GPUs, nothing else */
    public GpuBackend backend() {
        return new Backend();
    }

    private synchronized Optional<Session> live(long sid) {
        return Optional.ofNullable(sessions.get(sid));
    }

    private final class Procs extends LoneSessions {
        @Override
        protected Optional<CompletableFuture<?>> exitOf(long sid) {
            return live(sid).map(Session::exit);
        }

        @Override
        protected boolean stop(long sid, int status) {
            Optional<Session> s = live(sid);
            s.ifPresent(session -> exit(session, status)); // the sim job exits when told
            return s.isPresent();
        }
    }

    private final class Backend implements GpuBackend {
        @Override
        public GpuSnapshot snapshot() {
            synchronized (SimulatedMachine.this) {
                if (lastSnapshot.isEmpty()) {
                    lastSnapshot = Optional.of(read());
                }
                return lastSnapshot.get();
            }
        }

        /** The GPUs as the live runs make them; called under the machine's lock. */
        private GpuSnapshot read() {
            List<GpuProcess> processes = new ArrayList<>();
            long[] used = new long[gpuTotalsMib.size()];
            for (Session s : sessions.values()) {
                Work w = work.get(s.no());
                if (w.shows()) {
                    long peak = w.peakMib.getAsLong();
                    for (int g : s.gpus()) {
                        processes.add(new GpuProcess(g, s.sid(), peak));
                        used[g] += peak;
                    }
                }
            }
            List<GpuStat> stats = new ArrayList<>();
            for (int g = 0; g < gpuTotalsMib.size(); g++) {
                stats.add(GpuStat.of(g, gpuTotalsMib.get(g), Math.min(used[g], gpuTotalsMib.get(g))));
            }
            return new GpuSnapshot(stats, processes);
        }

        @Override
        public String describe() {
            return "simulated (" + gpuTotalsMib.size() + " GPUs)";
        }

        @Override
        public void close() {
        }
    }
}
