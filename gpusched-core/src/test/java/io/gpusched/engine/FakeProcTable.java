package io.gpusched.engine;

import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.proc.ProcTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A process table with no processes behind it: a session is alive while the test (or a signal) has not
 * ended it. A SIGTERM or SIGKILL to a live session ends it with 128 + the signal, as a shell would
 * report; every signal sent is kept for the test to read.
 */
final class FakeProcTable implements ProcTable {
    /** A signal the engine sent. */
    record Signal(long pid, boolean forcibly) {
    }

    private final Map<Long, CompletableFuture<Integer>> sessions = new ConcurrentHashMap<>();
    final List<Signal> signals = new CopyOnWriteArrayList<>();

    /** A session that lives until {@link #end} or a signal; its leader is {@code sid}. */
    CompletableFuture<Integer> live(long sid) {
        return sessions.computeIfAbsent(sid, s -> new CompletableFuture<>());
    }

    /** The session's processes end with this status. */
    void end(long sid, int status) {
        live(sid).complete(status);
    }

    private boolean alive(long sid) {
        CompletableFuture<Integer> f = sessions.get(sid);
        return f != null && !f.isDone();
    }

    @Override
    public OptionalLong sessionOf(long pid) {
        return alive(pid) ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    @Override
    public OptionalLong startTicks(long pid) {
        return alive(pid) ? OptionalLong.of(1) : OptionalLong.empty();
    }

    @Override
    public List<Long> sessionMembers(long sid) {
        return alive(sid) ? List.of(sid) : List.of();
    }

    @Override
    public boolean sessionAlive(long sid) {
        return alive(sid);
    }

    @Override
    public List<List<Long>> leftovers(List<ProcFs.Run> runs, Set<Long> otherSessions) {
        List<List<Long>> none = new ArrayList<>();
        runs.forEach(r -> none.add(List.of()));
        return none;
    }

    @Override
    public boolean carries(long pid, String envEntry) {
        return false;
    }

    @Override
    public List<Long> carriers(String envEntry) {
        return List.of();
    }

    @Override
    public OptionalLong ownSession() {
        return OptionalLong.empty();
    }

    @Override
    public Optional<CompletableFuture<?>> onExit(long pid) {
        return alive(pid) ? Optional.of(sessions.get(pid)) : Optional.empty();
    }

    @Override
    public boolean signal(long pid, boolean forcibly) {
        signals.add(new Signal(pid, forcibly));
        if (!alive(pid)) {
            return false;
        }
        end(pid, 128 + (forcibly ? 9 : 15));
        return true;
    }
}
