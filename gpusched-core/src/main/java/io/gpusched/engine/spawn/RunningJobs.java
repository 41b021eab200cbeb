package io.gpusched.engine.spawn;

import io.gpusched.engine.proc.ProcTable;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The jobs running now, by key and by session id (each job leads its own session). Loop thread only. */
public final class RunningJobs {
    private final Map<String, RunningJob> byKey = new LinkedHashMap<>();
    private final Map<Long, RunningJob> bySession = new HashMap<>();
    private final ProcTable procFs;
    private long ownSession;

    public RunningJobs(ProcTable procFs) {
        this.procFs = procFs;
    }

    public void add(RunningJob rj) {
        byKey.put(rj.key(), rj);
        bySession.put(rj.pid, rj);
    }

    /** @return whether {@code rj} was the current attempt of its job (a late exit of an old one is not) */
    public boolean remove(RunningJob rj) {
        if (byKey.get(rj.key()) != rj) {
            return false;
        }
        byKey.remove(rj.key());
        bySession.remove(rj.pid);
        return true;
    }

    public Optional<RunningJob> get(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    public boolean contains(String key) {
        return byKey.containsKey(key);
    }

    /** @return the job whose session this is, if any */
    public Optional<RunningJob> inSession(long sid) {
        return Optional.ofNullable(bySession.get(sid));
    }

    public Collection<RunningJob> all() {
        return byKey.values();
    }

    public boolean isEmpty() {
        return byKey.isEmpty();
    }

    public int size() {
        return byKey.size();
    }

    /**
     * Sessions no run's escaped process can be in: the running jobs' (each led by its own wrapper)
     * and the scheduler's own. Leaving these out spares reading most environments in a sweep.
     */
    public Set<Long> otherSessions() {
        Set<Long> other = new HashSet<>(bySession.keySet());
        if (ownSession == 0) {
            ownSession = procFs.ownSession().orElse(-1);
        }
        other.add(ownSession);
        return other;
    }
}
