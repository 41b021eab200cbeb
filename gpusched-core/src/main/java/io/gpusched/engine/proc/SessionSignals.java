package io.gpusched.engine.proc;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Signals every process of a job's session. Java can send SIGTERM and SIGKILL to any process through
 * {@link ProcessHandle}, so no {@code kill} command is spawned. A process forked between the scan and
 * the signal escapes one pass; callers sweep again with SIGKILL after the leader exits.
 */
public final class SessionSignals {
    private final ProcTable procFs;

    public SessionSignals(ProcTable procFs) {
        this.procFs = procFs;
    }

    /** SIGTERM to every member of the session; returns how many were signalled. */
    public int terminate(long sid) {
        return signal(sid, Optional.empty(), false);
    }

    /**
     * SIGTERM to every process of a run: its session's members, or for a lease (run in its client's
     * terminal, not a session of its own) every process carrying its entry.
     */
    public int terminate(long sid, Optional<String> leaseEntry) {
        return signal(sid, leaseEntry, false);
    }

    /** SIGKILL to every process of a run (as {@link #terminate(long, Optional)}), repeated while more appear (bounded). */
    public int kill(long sid, Optional<String> leaseEntry) {
        int total = 0;
        for (int pass = 0; pass < 5; pass++) {
            int n = signal(sid, leaseEntry, true);
            total += n;
            if (n == 0) {
                break;
            }
        }
        return total;
    }

    /** @return whether no run can leave a process here ({@link ProcTable#leavesNothing}): nothing to sweep for */
    public boolean leavesNothing() {
        return procFs.leavesNothing();
    }

    /**
     * SIGKILL to everything finished runs left behind, in their sessions or escaped from them with the
     * run's environment entry (see {@link ProcFs#leftovers(List, Set)}), repeated while new ones
     * appear (bounded). One pass over {@code /proc} serves every run.
     *
     * @return for each run, in order, how many of its processes were killed
     */
    public int[] killLeftovers(List<ProcFs.Run> runs, Set<Long> otherSessions) {
        // Distinct pids per run: a process SIGKILLed in one pass may still be listed by the next.
        List<Set<Long>> killed = new java.util.ArrayList<>();
        runs.forEach(r -> killed.add(new java.util.HashSet<>()));
        for (int pass = 0; pass < 5; pass++) {
            List<List<Long>> found = procFs.leftovers(runs, otherSessions);
            int n = 0;
            for (int i = 0; i < runs.size(); i++) {
                for (long pid : found.get(i)) {
                    if (send(List.of(pid), true) > 0) {
                        killed.get(i).add(pid);
                        n++;
                    }
                }
            }
            if (n == 0) {
                break;
            }
        }
        return killed.stream().mapToInt(Set::size).toArray();
    }

    /**
     * SIGTERM to what is provably a run's own among its processes ({@link #terminate(long, Optional)}):
     * those that carry the run's environment entry and run as its owner or root. For a run no scheduler
     * watched: its session id may be another user's session by now (a pid given out again), and its
     * token may sit in another user's process (a token is no secret).
     *
     * @param sid the run's session id
     * @param leaseEntry a lease's entry, whose processes are found by it rather than by session
     * @param entry the run's environment entry ({@code NAME=value})
     * @param owner who the run is for
     * @return how many were signalled
     */
    public int terminateOwn(long sid, Optional<String> leaseEntry, String entry, String owner) {
        List<Long> own = new java.util.ArrayList<>();
        for (long pid : members(sid, leaseEntry)) {
            if (procFs.carries(pid, entry) && procFs.runsAs(pid, owner)) {
                own.add(pid);
            }
        }
        return send(own, false);
    }

    private int signal(long sid, Optional<String> leaseEntry, boolean forcibly) {
        return send(members(sid, leaseEntry), forcibly);
    }

    /** A run's processes: its session's members, or for a lease every process carrying its entry. */
    private List<Long> members(long sid, Optional<String> leaseEntry) {
        return leaseEntry.isPresent() ? procFs.carriers(leaseEntry.get()) : procFs.sessionMembers(sid);
    }

    private int send(List<Long> members, boolean forcibly) {
        int n = 0;
        long self = ProcessHandle.current().pid();
        for (long pid : members) {
            if (pid == self) {
                continue; // a scheduler started from inside a job carries that job's entry too
            }
            if (procFs.signal(pid, forcibly)) {
                n++;
            }
        }
        return n;
    }
}
