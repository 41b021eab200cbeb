package io.gpusched.engine.proc;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A process table with no processes behind it, for a stand-in of the kernel: each session is its leader
 * alone (start ticks 1), no run leaves anything behind, only a live leader carries an environment entry
 * (its run's), and the caller leads no session. A SIGTERM or SIGKILL to a live session ends it with
 * 128 + the signal, as a shell reports it. A subclass says which sessions live and how one ends.
 */
public abstract class LoneSessions implements ProcTable {
    /** For a subclass. */
    protected LoneSessions() {
    }

    /**
     * @param sid a session id (its leader's pid)
     * @return the live session's exit, empty when no session {@code sid} lives
     */
    protected abstract Optional<CompletableFuture<?>> exitOf(long sid);

    /**
     * Ends session {@code sid} with {@code status}, as its processes would.
     *
     * @param sid a session id
     * @param status its exit status
     * @return whether the session lived until now
     */
    protected abstract boolean stop(long sid, int status);

    @Override
    public OptionalLong sessionOf(long pid) {
        return exitOf(pid).isPresent() ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    @Override
    public OptionalLong startTicks(long pid) {
        return exitOf(pid).isPresent() ? OptionalLong.of(1) : OptionalLong.empty();
    }

    @Override
    public List<Long> sessionMembers(long sid) {
        return exitOf(sid).isPresent() ? List.of(sid) : List.of();
    }

    @Override
    public boolean sessionAlive(long sid) {
        return exitOf(sid).isPresent();
    }

    // Final, as leavesNothing() says so: no process outlives its session here.
    @Override
    public final List<List<Long>> leftovers(List<ProcFs.Run> runs, Set<Long> otherSessions) {
        List<List<Long>> none = new ArrayList<>();
        runs.forEach(r -> none.add(List.of())); // no process outlives its session here
        return none;
    }

    @Override
    public final boolean leavesNothing() {
        return true;
    }

    /** A live session's leader is its run's: a stand-in gives no pid out twice, so it carries what it is asked for. */
    @Override
    public boolean carries(long pid, String envEntry) {
        return exitOf(pid).isPresent();
    }

    /** A stand-in's processes are all its one owner's. */
    @Override
    public boolean runsAs(long pid, String user) {
        return exitOf(pid).isPresent();
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
        return exitOf(pid);
    }

    @Override
    public boolean signal(long pid, boolean forcibly) {
        return stop(pid, 128 + (forcibly ? 9 : 15));
    }
}
