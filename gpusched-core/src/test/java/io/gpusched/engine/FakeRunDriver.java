package io.gpusched.engine;

import io.gpusched.engine.spawn.RunDriver;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Starts no process: each start is a session of a {@link FakeProcTable} that the test ends (or a signal
 * does), with what the run "printed" written to its log by the test.
 */
final class FakeRunDriver implements RunDriver {
    /** One start: what the engine asked for, and the session standing for it. */
    record Run(Launch launch, long sid) {
        int no() {
            return Integer.parseInt(launch.jobVars().get("GPUSCHED_JOB_NO"));
        }
    }

    private final FakeProcTable procs;
    private long nextSid = 70_000;
    final List<Run> runs = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Run> started = new LinkedBlockingQueue<>();

    FakeRunDriver(FakeProcTable procs) {
        this.procs = procs;
    }

    /** What {@link #startsProcess()} answers: false makes it a stand-in, as a simulation's driver is. */
    volatile boolean startsProcesses = true;

    @Override
    public boolean startsProcess() {
        return startsProcesses;
    }

    /** While set, each start fails with this message, as a launch whose output is refused does. */
    volatile String refusing = null;

    /** Starts refused so far ({@link #refusing}). */
    final java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public synchronized Started start(Launch l) throws IOException {
        String refusal = refusing;
        if (refusal != null) {
            refused.incrementAndGet();
            throw new IOException(refusal);
        }
        long sid = nextSid++;
        Run r = new Run(l, sid);
        runs.add(r);
        started.add(r);
        return new Started(sid, procs.live(sid));
    }

    /** @return the next start, waiting up to 10 s for it */
    Run nextStart() throws InterruptedException {
        Run r = started.poll(10, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("no job started within 10 s; started so far: " + runs);
        }
        return r;
    }

    /** The run prints {@code text} and exits with {@code status}. */
    void exit(Run r, String text, int status) throws IOException {
        Files.writeString(r.launch().log(), text);
        procs.end(r.sid(), status);
    }
}
