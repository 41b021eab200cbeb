package io.gpusched.engine.proc;

import io.gpusched.proc.ProcSessions;
import io.gpusched.proc.ProcStat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads process sessions and start times from {@code /proc/<pid>/stat}, and environments from
 * {@code /proc/<pid>/environ}. Each scheduled job runs in its own session (its pid is the session id),
 * so matching a GPU process by session catches workers that moved to their own process group
 * (torchrun, multiprocessing); processes that left the session are found by their run's environment
 * entry.
 *
 * <p>Sessions and stat fields come from the shared {@link ProcSessions} scanner (the Slurm wrapper reads
 * its command's session with the same one); the environment matching is the engine's own.
 */
public final class ProcFs implements ProcTable {
    private final Path proc;
    private final ProcSessions sessions;

    public ProcFs(Path proc) {
        this.proc = proc;
        this.sessions = new ProcSessions(proc);
    }

    public static ProcFs system() {
        return new ProcFs(Path.of("/proc"));
    }

    /** Session id of a live process, empty if it does not exist here (exited, or another PID namespace). */
    @Override
    public OptionalLong sessionOf(long pid) {
        return sessions.sessionOf(pid);
    }

    /** Start time of a process in clock ticks since boot (field 22 of its stat), if it is alive here. */
    @Override
    public OptionalLong startTicks(long pid) {
        Optional<ProcStat> s = stat(pid);
        return s.isPresent() ? OptionalLong.of(s.get().startTicks()) : OptionalLong.empty();
    }

    /**
     * How long a live process has run: {@code /proc/uptime} less its start ticks, both counted from boot
     * by the kernel, at {@code USER_HZ} = 100 ticks a second (fixed by Linux's ABI on every architecture
     * it runs on, whatever the kernel's own tick rate).
     */
    @Override
    public OptionalLong ranNanos(long pid) {
        Optional<ProcStat> s = stat(pid);
        OptionalLong up = uptimeNanos();
        if (s.isEmpty() || up.isEmpty() || s.get().startTicks() < 0 || s.get().startTicks() > Long.MAX_VALUE / TICK_NANOS) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(0, up.getAsLong() - s.get().startTicks() * TICK_NANOS));
    }

    /** Nanoseconds of one {@code USER_HZ} clock tick, the unit of a process's start time in its stat. */
    private static final long TICK_NANOS = 10_000_000;

    /** @return the first number of {@code /proc/uptime} (seconds since boot, as {@code 12345.67}) in nanoseconds */
    private OptionalLong uptimeNanos() {
        try {
            String text = Files.readString(proc.resolve("uptime"), java.nio.charset.StandardCharsets.US_ASCII);
            String first = text.strip().split("\\s+", 2)[0];
            java.math.BigDecimal nanos = new java.math.BigDecimal(first).movePointRight(9);
            if (nanos.signum() < 0 || nanos.compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(nanos.longValue());
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty(); // no /proc/uptime here (or not a number): the caller uses the wall clock
        }
    }

    /** Every live process whose session is {@code sid}, the leader included. */
    @Override
    public List<Long> sessionMembers(long sid) {
        return sessions.members(sid); // none for session 0 (the kernel's threads) or 1 (init's): never a job's
    }

    @Override
    public boolean sessionAlive(long sid) {
        return !sessionMembers(sid).isEmpty();
    }

    /**
     * A finished run whose leftovers are looked for: its session, the environment entry its processes
     * inherited ({@code NAME=value}), and its leader's start time in clock ticks since boot (0 when
     * unknown: every candidate's environment is read then).
     */
    public record Run(long sid, String envEntry, long minStartTicks) {
    }

    /**
     * Every live process each run left behind, in one pass over {@code /proc}: the members of its
     * session, and processes that left the session (a daemon's {@code setsid}) but still carry the
     * run's environment entry. Only processes born at or after a run's leader and not in one of
     * {@code otherSessions} (other jobs', the scheduler's own: a process cannot move into an existing
     * session it does not lead) can be a run's escapees, so only their environments are read, once.
     *
     * @param runs the finished runs
     * @param otherSessions sessions known to belong to someone else
     * @return for each run, in order, its leftover pids
     */
    @Override
    public List<List<Long>> leftovers(List<Run> runs, Set<Long> otherSessions) {
        List<List<Long>> out = new ArrayList<>();
        List<byte[]> entries = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Run r : runs) {
            out.add(new ArrayList<>());
            entries.add(r.envEntry().getBytes(StandardCharsets.UTF_8));
            earliest = Math.min(earliest, r.minStartTicks());
        }
        for (long pid : pids()) {
            Optional<ProcStat> o = stat(pid);
            if (o.isEmpty() || o.get().zombie()) {
                continue;
            }
            ProcStat s = o.get();
            boolean member = false;
            for (int i = 0; i < runs.size(); i++) {
                if (runs.get(i).sid() > 1 && s.session() == runs.get(i).sid()) {
                    out.get(i).add(pid);
                    member = true;
                }
            }
            if (member || s.startTicks() < earliest || s.session() <= 1 || otherSessions.contains(s.session())) {
                continue;
            }
            byte[] env = environ(pid);
            for (int i = 0; i < runs.size(); i++) {
                if (s.startTicks() >= runs.get(i).minStartTicks() && containsEntry(env, entries.get(i))) {
                    out.get(i).add(pid);
                }
            }
        }
        return out;
    }

    /** Whether a process's environment holds {@code envEntry} exactly; false when it cannot be read. */
    @Override
    public boolean carries(long pid, String envEntry) {
        return environContains(pid, envEntry.getBytes(StandardCharsets.UTF_8));
    }

    /** Every live process whose environment holds {@code envEntry} exactly (one {@code NAME=value}). */
    @Override
    public List<Long> carriers(String envEntry) {
        byte[] entry = envEntry.getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            Optional<ProcStat> s = stat(pid);
            if (s.isPresent() && !s.get().zombie() && environContains(pid, entry)) {
                out.add(pid);
            }
        }
        return out;
    }

    /**
     * By its real and effective user ({@code Uid:} in {@code /proc/<pid>/status}), which must be one and
     * the same, and the owner of {@code /proc/<pid>} (the effective user, named as the system's user
     * database names it; one stat, so the name and the number agree). A set-user-ID root program any user
     * may start with an environment of her choosing ({@code su} waiting at its password prompt) runs as
     * root only in effect: its real user is hers, so it is hers, not root's, and not the run's owner's.
     */
    @Override
    public boolean runsAs(long pid, String user) {
        Path dir = proc.resolve(Long.toString(pid));
        try {
            long[] ids = realAndEffectiveUid(dir.resolve("status"));
            if (ids.length != 2 || ids[0] != ids[1]) {
                return false;
            }
            java.util.Map<String, Object> a = Files.readAttributes(dir, "unix:uid,owner");
            if (!(a.get("uid") instanceof Integer uid) || uid.longValue() != ids[1]
                    || !(a.get("owner") instanceof java.nio.file.attribute.UserPrincipal owner)) {
                return false; // its credentials changed between the two reads, or its number is another's now
            }
            return owner.getName().equals(user) || ids[1] == 0;
        } catch (IOException | SecurityException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The first two numbers of the {@code Uid:} line of a process's status: its real and effective uid. */
    private static long[] realAndEffectiveUid(Path status) throws IOException {
        byte[] b = new byte[4096];
        int n;
        try (java.io.InputStream in = Files.newInputStream(status)) {
            n = in.readNBytes(b, 0, b.length);
        }
        String text = new String(b, 0, n, StandardCharsets.US_ASCII);
        int at = 0;
        if (!text.startsWith("Uid:")) {
            int line = text.indexOf("\nUid:");
            if (line < 0) {
                return new long[0];
            }
            at = line + 1;
        }
        int end = text.indexOf('\n', at);
        String[] f = text.substring(at + "Uid:".length(), end < 0 ? text.length() : end).trim().split("\\s+");
        if (f.length < 2) {
            return new long[0];
        }
        try {
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        } catch (NumberFormatException e) {
            return new long[0];
        }
    }

    /** The session id of this JVM. */
    @Override
    public OptionalLong ownSession() {
        return sessionOf(ProcessHandle.current().pid());
    }

    @Override
    public Optional<java.util.concurrent.CompletableFuture<?>> onExit(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::onExit);
    }

    @Override
    public boolean signal(long pid, boolean forcibly) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        return h.isPresent() && (forcibly ? h.get().destroyForcibly() : h.get().destroy());
    }

    /** The stat fields of a live process here, empty when it is gone. */
    Optional<ProcStat> stat(long pid) {
        return sessions.stat(pid);
    }

    private boolean environContains(long pid, byte[] entry) {
        return containsEntry(environ(pid), entry);
    }

    private byte[] environ(long pid) {
        try {
            return Files.readAllBytes(proc.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | SecurityException e) {
            return new byte[0];
        }
    }

    /** Entries are NUL-separated; match whole entries only, so RUN=1 does not match RUN=12. */
    private static boolean containsEntry(byte[] env, byte[] entry) {
        int i = 0;
        while (i < env.length) {
            int end = i;
            while (end < env.length && env[end] != 0) {
                end++;
            }
            if (end - i == entry.length && Arrays.equals(env, i, end, entry, 0, entry.length)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    private List<Long> pids() {
        return sessions.pids();
    }
}
