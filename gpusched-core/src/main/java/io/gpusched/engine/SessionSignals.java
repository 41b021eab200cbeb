package io.gpusched.engine;

import java.util.List;
import java.util.Optional;

/**
 * Signals every process of a job's session. Java can send SIGTERM and SIGKILL to any process through
 * {@link ProcessHandle}, so no {@code kill} command is spawned. A process forked between the scan and
 * the signal escapes one pass; callers sweep again with SIGKILL after the leader exits.
 */
final class SessionSignals {
    private final ProcFs procFs;

    SessionSignals(ProcFs procFs) {
        this.procFs = procFs;
    }

    /** SIGTERM to every member of the session; returns how many were signalled. */
    int terminate(long sid) {
        return signal(sid, false);
    }

    /** SIGKILL to every member, repeated while members keep appearing (bounded). */
    int kill(long sid) {
        int total = 0;
        for (int pass = 0; pass < 5; pass++) {
            int n = signal(sid, true);
            total += n;
            if (n == 0) {
                break;
            }
        }
        return total;
    }

    /**
     * SIGKILL to everything a finished run left behind, in its session or escaped from it with the
     * run's environment entry (see {@link ProcFs#leftovers}), repeated while new ones appear (bounded).
     *
     * @return how many processes were killed
     */
    int killLeftovers(long sid, String envEntry, long minStartTicks) {
        int total = 0;
        for (int pass = 0; pass < 5; pass++) {
            int n = send(procFs.leftovers(sid, envEntry, minStartTicks), true);
            total += n;
            if (n == 0) {
                break;
            }
        }
        return total;
    }

    private int signal(long sid, boolean forcibly) {
        return send(procFs.sessionMembers(sid), forcibly);
    }

    private static int send(List<Long> members, boolean forcibly) {
        int n = 0;
        long self = ProcessHandle.current().pid();
        for (long pid : members) {
            if (pid == self) {
                continue; // a scheduler started from inside a job carries that job's entry too
            }
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isPresent()) {
                boolean sent = forcibly ? h.get().destroyForcibly() : h.get().destroy();
                if (sent) {
                    n++;
                }
            }
        }
        return n;
    }
}
