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

    private int signal(long sid, boolean forcibly) {
        List<Long> members = procFs.sessionMembers(sid);
        int n = 0;
        for (long pid : members) {
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
