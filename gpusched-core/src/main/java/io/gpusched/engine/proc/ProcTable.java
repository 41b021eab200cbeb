package io.gpusched.engine.proc;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The process facts and signals the engine acts on: which processes a session or a run's environment
 * entry holds, whether a leader lives, when it exits. {@link ProcFs} reads them from {@code /proc} and
 * signals through {@link ProcessHandle}; tests give a table of their own, so recovery, cancels and
 * endings are decided without any process.
 */
public interface ProcTable {
    /** @return the session id of a live process; empty if it does not exist here */
    OptionalLong sessionOf(long pid);

    /** @return a live process's start time in clock ticks since boot; empty if it does not exist here */
    OptionalLong startTicks(long pid);

    /**
     * How long a live process has run, by the kernel's clock since boot (its start time in its
     * {@code stat} against {@code /proc/uptime}): a wall clock set forward or back while it ran, or while
     * no scheduler did, does not move it, so a restarted scheduler times a job it takes up from its real
     * start. Empty where the process is gone or the kernel's clock cannot be read (then the caller falls
     * back on the wall clock).
     *
     * @param pid a process id
     * @return nanoseconds since it started, never negative; empty when unknown
     */
    default OptionalLong ranNanos(long pid) {
        return OptionalLong.empty();
    }

    /** @return every live process whose session is {@code sid}, the leader included */
    List<Long> sessionMembers(long sid);

    /** @return whether any live process is in session {@code sid} */
    boolean sessionAlive(long sid);

    /**
     * @param runs finished runs
     * @param otherSessions sessions known to belong to someone else
     * @return for each run, in order, the live processes it left behind ({@link ProcFs#leftovers})
     */
    List<List<Long>> leftovers(List<ProcFs.Run> runs, Set<Long> otherSessions);

    /**
     * @return true where no process can outlive its run's session (a stand-in with no processes behind
     *     it): {@link #leftovers} then finds none for any run, so a sweep need not ask
     */
    default boolean leavesNothing() {
        return false;
    }

    /** @return whether a process's environment holds {@code envEntry} exactly */
    boolean carries(long pid, String envEntry);

    /** @return every live process whose environment holds {@code envEntry} exactly */
    List<Long> carriers(String envEntry);

    /**
     * Whether a process runs as {@code user} or as root: a run token in another user's process is theirs
     * to put there (a token is no secret), so a process counts as a run's by its token only when it runs
     * as the run's owner (or as root, the daemon's own helpers before they drop to the owner). Its real
     * user counts, not only its effective one: a set-user-ID root program that another user started (with
     * the token in the environment she gave it) is root's in effect only, and is hers.
     *
     * @param pid a process
     * @param user a user name
     * @return true when the process's real and effective user are both {@code user}, or both root; false
     *     when it is gone, someone else's, or runs a set-user-ID program that another user started
     */
    boolean runsAs(long pid, String user);

    /** @return the processes carrying {@code envEntry} that run as {@code user} or root ({@link #runsAs}) */
    default List<Long> carriers(String envEntry, String user) {
        List<Long> all = carriers(envEntry);
        List<Long> theirs = new java.util.ArrayList<>(all.size());
        for (long pid : all) {
            if (runsAs(pid, user)) {
                theirs.add(pid);
            }
        }
        return theirs;
    }

    /** @return the session id of this scheduler's own process */
    OptionalLong ownSession();

    /**
     * @param pid a process id (a run's leader)
     * @return completed when it exits, on any thread; empty when it is not alive now
     */
    Optional<CompletableFuture<?>> onExit(long pid);

    /**
     * Sends SIGTERM, or with {@code forcibly} SIGKILL.
     *
     * @return whether it was sent
     */
    boolean signal(long pid, boolean forcibly);
}
