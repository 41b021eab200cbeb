package io.gpusched.engine;

import io.gpusched.engine.proc.LoneSessions;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A process table with no processes behind it: a session is alive while the test (or a signal) has not
 * ended it ({@link LoneSessions} answers the rest); every signal sent is kept for the test to read.
 */
final class FakeProcTable extends LoneSessions {
    /** A signal the engine sent. */
    record Signal(long pid, boolean forcibly) {
    }

    private final Map<Long, CompletableFuture<Integer>> sessions = new ConcurrentHashMap<>();
    final List<Signal> signals = new CopyOnWriteArrayList<>();
    /** Sessions that take no notice of SIGTERM: only the grace's SIGKILL ends them. */
    final java.util.Set<Long> ignoreSigterm = ConcurrentHashMap.newKeySet();
    /** The live processes carrying each environment entry (a lease's token), whoever's. */
    final Map<String, List<Long>> carriers = new ConcurrentHashMap<>();
    /** How long each session has run by the kernel's clock ({@link #ranNanos}); unknown when absent. */
    final Map<Long, Long> ranNanos = new ConcurrentHashMap<>();

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
    protected Optional<CompletableFuture<?>> exitOf(long sid) {
        return alive(sid) ? Optional.of(sessions.get(sid)) : Optional.empty();
    }

    @Override
    protected boolean stop(long sid, int status) {
        if (!alive(sid)) {
            return false;
        }
        end(sid, status);
        return true;
    }

    @Override
    public boolean signal(long pid, boolean forcibly) {
        signals.add(new Signal(pid, forcibly));
        if (!forcibly && ignoreSigterm.contains(pid)) {
            return alive(pid);
        }
        return super.signal(pid, forcibly);
    }

    @Override
    public List<Long> carriers(String envEntry) {
        return carriers.getOrDefault(envEntry, List.of()).stream().filter(this::alive).toList();
    }

    @Override
    public java.util.OptionalLong ranNanos(long pid) {
        Long ran = ranNanos.get(pid);
        return ran != null && alive(pid) ? java.util.OptionalLong.of(ran) : java.util.OptionalLong.empty();
    }
}
