package io.gpusched.journal;

import java.util.HashMap;
import java.util.Map;

/**
 * The fold of a journal: each key's {@link JobRecord} and the next free display number. Pure: no
 * files, no clock. Not thread-safe; owned by the scheduler's thread.
 */
public final class JournalState {
    private final Map<String, JobRecord> records = new HashMap<>();
    private final Map<String, JournalEvent.Submitted> submissions = new java.util.LinkedHashMap<>();
    /**
     * The pauses in force, by what they pause ({@link #pauseOfDevice}, {@link #pauseOfIndex}): those of a
     * device sort first, those of an index after them by index.
     */
    private final Map<String, JournalEvent.GpuPaused> pauses = new java.util.TreeMap<>();
    private final PeakHistory peaks = new PeakHistory();
    /** The Slurm job of each key's attempt in flight ({@link JournalEvent.SlurmSubmitted}). */
    private final Map<String, JournalEvent.SlurmSubmitted> slurmJobs = new HashMap<>();
    /** The stop asked of each key's attempt in flight ({@link JournalEvent.Stopping}). Few: the runs being stopped. */
    private final Map<String, JournalEvent.Stopping> stopsInFlight = new HashMap<>();
    /**
     * The {@code started} line of each key's attempt in flight: what it names beside the record (its devices'
     * UUIDs, the ticker at its launch), for a run taken up after a restart. Few: the runs in flight.
     */
    private final Map<String, JournalEvent.Started> startedInFlight = new HashMap<>();
    /** Each owner's submissions that have not ended, kept as events fold so a cap costs O(1) per submission. */
    private final Map<String, Integer> openByOwner = new HashMap<>();
    /** The same submissions' size ({@link #size}), by owner, kept the same way. */
    private final Map<String, Long> openBytesByOwner = new HashMap<>();
    /** The last environment {@link #size} measured and its size: a user's sweep shares one ({@link Shared}). */
    private Map<String, String> measuredEnv;
    private long measuredEnvBytes;
    /**
     * Each display number's key, so a job is found by the number users name it by without a scan: by
     * number in an array (numbers are given in order from 1, so it is dense: 4 bytes a job where a map
     * held a node and a boxed number, 48), and in a map for a number far past the others (a hand-edited
     * journal), so one such line cannot make the array that long.
     */
    private String[] keyAt = new String[64];
    private final Map<Integer, String> keyByFarNo = new HashMap<>();
    private int nextNo = 1;
    private long nextRun = 1;

    /**
     * Folds one event in.
     *
     * @param e the event
     */
    public void apply(JournalEvent e) {
        if (e instanceof JournalEvent.Compacted c) {
            nextNo = Math.max(nextNo, c.nextNo());
            nextRun = Math.max(nextRun, c.nextRun());
            return;
        }
        if (e instanceof JournalEvent.GpuPaused p) {
            // A device's pause stands in for an index's at the index it was listed at (binding an older
            // line by index to the device there); a resume there ends both.
            pauses.remove(pauseOfIndex(p.gpu()));
            p.device().ifPresent(d -> pauses.remove(pauseOfDevice(d)));
            if (p.paused()) {
                pauses.put(p.device().map(JournalState::pauseOfDevice).orElse(pauseOfIndex(p.gpu())), p);
            }
            return;
        }
        if (e instanceof JournalEvent.Learned l) {
            peaks.apply(l);
            return;
        }
        if (e instanceof JournalEvent.SlurmSubmitted s) {
            slurmJobs.put(s.key(), s);
        } else if (e instanceof JournalEvent.Oom || e instanceof JournalEvent.Done || e instanceof JournalEvent.Interrupted
                || e instanceof JournalEvent.Requeued || e instanceof JournalEvent.Retry) {
            slurmJobs.remove(e.key());
            startedInFlight.remove(e.key());
            stopsInFlight.remove(e.key());
        }
        if (e instanceof JournalEvent.Started s) {
            startedInFlight.put(s.key(), s);
        } else if (e instanceof JournalEvent.Launching) {
            startedInFlight.remove(e.key());
            stopsInFlight.remove(e.key());
        } else if (e instanceof JournalEvent.Stopping t) {
            stopsInFlight.put(t.key(), t);
        }
        JobRecord before = record(e.key());
        JobRecord r = before.apply(e);
        records.put(e.key(), r);
        JournalEvent.Submitted was = submissions.get(e.key());
        peaks.apply(e, r, was == null ? java.util.Optional.empty() : java.util.Optional.of(was.owner()));
        if (e instanceof JournalEvent.Seen s) {
            nextNo = Math.max(nextNo, s.no() + 1);
            number(s.no(), s.key());
        } else if (e instanceof JournalEvent.Submitted s) {
            nextNo = Math.max(nextNo, s.no() + 1);
            number(s.no(), s.key());
            submissions.put(s.key(), s);
        } else if (e instanceof JournalEvent.Launching l) {
            nextRun = Math.max(nextRun, l.run() + 1);
        }
        // Counted on the way in and out of a terminal status, whichever event moves it (done, a retry
        // of a failed job, a submission written again). Most events move neither status nor owner: out and
        // back in for the same owner would leave the count as it was, so the maps are left alone.
        JournalEvent.Submitted now = e instanceof JournalEvent.Submitted s ? s : was;
        boolean wasOpen = was != null && !before.terminal();
        boolean isOpen = now != null && !r.terminal();
        if (wasOpen && isOpen && was.owner().equals(now.owner())) {
            if (now != was) {
                // A submission written again (its own line, as a compaction writes it): its size, should it differ.
                long grown = size(now) - size(was);
                openBytesByOwner.merge(now.owner(), grown, (a, b) -> a + b <= 0 ? null : a + b);
            }
            return;
        }
        if (wasOpen) {
            openByOwner.computeIfPresent(was.owner(), (o, n) -> n == 1 ? null : n - 1);
            long bytes = size(was);
            openBytesByOwner.computeIfPresent(was.owner(), (o, n) -> n - bytes <= 0 ? null : n - bytes);
        }
        if (isOpen) {
            openByOwner.merge(now.owner(), 1, Integer::sum);
            openBytesByOwner.merge(now.owner(), size(now), Long::sum);
        }
    }

    /**
     * What a submission holds of its submitter's choosing, in bytes of UTF-8: its command and line, its
     * directory, output and request id, and its environment's names and values. The journal holds it on
     * disk and the scheduler in memory until the job has ended; {@code gpusched serve
     * --max-queued-size-per-user} caps each user's.
     *
     * @param s a submission
     * @return its size, at least 1
     */
    public long size(JournalEvent.Submitted s) {
        long n = 1 + utf8(s.command()) + utf8(s.cwd()) + utf8(s.owner());
        n += s.line().map(JournalState::utf8).orElse(0L) + s.output().map(JournalState::utf8).orElse(0L)
                + s.requestId().map(JournalState::utf8).orElse(0L);
        if (s.env().isPresent()) {
            Map<String, String> env = s.env().get();
            if (env != measuredEnv) {
                long e = 0;
                for (Map.Entry<String, String> v : env.entrySet()) {
                    e += utf8(v.getKey()) + utf8(v.getValue()) + 2;
                }
                measuredEnv = env;
                measuredEnvBytes = e;
            }
            n += measuredEnvBytes;
        }
        return n;
    }

    /** The length of a string in UTF-8, without encoding it. */
    private static long utf8(String s) {
        long n = s.length();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                // 2 bytes up to U+07FF, 3 beyond; a surrogate pair (4 bytes) is two chars of 2 more each.
                n += c < 0x800 ? 1 : Character.isSurrogate(c) ? 1 : 2;
            }
        }
        return n;
    }

    private void number(int no, String key) {
        if (no >= keyAt.length && no >= 0 && no < 2L * keyAt.length + 1024) {
            keyAt = java.util.Arrays.copyOf(keyAt, Math.max(no + 1, 2 * keyAt.length));
        }
        if (no >= 0 && no < keyAt.length) {
            keyAt[no] = key;
            keyByFarNo.remove(no); // a far number the array has reached since: the array's entry is the newer
        } else {
            keyByFarNo.put(no, key);
        }
    }

    /**
     * @param owner a user, as a submission names its owner
     * @return how many of their API submissions have not ended (pending, held, running, waiting to run
     *     again); 0 for a user with none. Jobs-file lines are not counted
     */
    public int openSubmissions(String owner) {
        return openByOwner.getOrDefault(owner, 0);
    }

    /**
     * @param owner a user, as a submission names its owner
     * @return the {@link #size} of their API submissions that have not ended, in bytes; 0 for a user with none
     */
    public long openSubmissionBytes(String owner) {
        return openBytesByOwner.getOrDefault(owner, 0L);
    }

    /**
     * @param key a job key
     * @return its record ({@link JobRecord#unseen()} if the journal never mentioned it)
     */
    public JobRecord record(String key) {
        // Not getOrDefault: its default is built on every call, and the engine looks jobs up many times a round.
        JobRecord r = records.get(key);
        return r != null ? r : JobRecord.unseen();
    }

    /**
     * @param no a display number
     * @return the key of the job the journal gave that number; empty for a number it never gave
     */
    public java.util.Optional<String> keyOf(int no) {
        if (no >= 0 && no < keyAt.length && keyAt[no] != null) {
            return java.util.Optional.of(keyAt[no]);
        }
        return java.util.Optional.ofNullable(keyByFarNo.get(no));
    }

    /** @return the display number the next newly seen job gets */
    public int nextNo() {
        return nextNo;
    }

    /** @return the run number the next launch gets: one above any the journal names */
    public long nextRun() {
        return nextRun;
    }

    /** @return every API submission the journal holds, in the order written (a read-only view) */
    public java.util.Collection<JournalEvent.Submitted> submissions() {
        return java.util.Collections.unmodifiableCollection(submissions.values());
    }

    /**
     * @param key a job's key
     * @return its submission, when it is a job submitted through the API whose line the journal holds
     */
    public java.util.Optional<JournalEvent.Submitted> submission(String key) {
        return java.util.Optional.ofNullable(submissions.get(key));
    }

    /**
     * @param key a job's key
     * @return the Slurm job its attempt in flight was submitted as, when a {@code slurm_submitted} line names
     *     one and no outcome followed it
     */
    public java.util.OptionalLong slurmJob(String key) {
        JournalEvent.SlurmSubmitted s = slurmJobs.get(key);
        return s == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(s.slurmJob());
    }

    /**
     * @param key a job's key
     * @return the {@code slurm_submitted} line of its attempt in flight, when one names it and no outcome followed
     */
    public java.util.Optional<JournalEvent.SlurmSubmitted> slurmSubmission(String key) {
        return java.util.Optional.ofNullable(slurmJobs.get(key));
    }

    /**
     * @param key a job's key
     * @return the stop asked of its attempt in flight, when a {@code stopping} line asked one and no outcome,
     *     {@code interrupted}, {@code requeued}, {@code retry} or new {@code launching} line followed it
     */
    public java.util.Optional<JournalEvent.Stopping> stopping(String key) {
        return java.util.Optional.ofNullable(stopsInFlight.get(key));
    }

    /**
     * @param key a job's key
     * @return the device UUIDs of its attempt in flight, one per GPU of its record, as its {@code started}
     *     line names them; empty when it names none (older lines, simulated GPUs) or no attempt is in flight
     */
    public java.util.List<String> devices(String key) {
        JournalEvent.Started s = startedInFlight.get(key);
        return s == null ? java.util.List.of() : s.devices();
    }

    /**
     * @param key a job's key
     * @return the ticker its attempt in flight was launched at, as its {@code started} line says
     *     ({@link JournalEvent.Started#tickerNanos}); empty when it says none (older lines) or no attempt is in flight
     */
    public java.util.OptionalLong startedTicker(String key) {
        JournalEvent.Started s = startedInFlight.get(key);
        return s == null ? java.util.OptionalLong.empty() : s.tickerNanos();
    }

    private static String pauseOfDevice(String uuid) {
        return "0" + uuid;
    }

    private static String pauseOfIndex(int gpu) {
        return String.format("1%010d", gpu);
    }

    /**
     * @return the indices the pauses in force were journaled at (a copy); where a pause names a device, the
     *     device may be listed elsewhere now ({@link #pauses()})
     */
    public java.util.Set<Integer> pausedGpus() {
        java.util.Set<Integer> out = new java.util.TreeSet<>();
        pauses.values().forEach(p -> out.add(p.gpu()));
        return out;
    }

    /**
     * @return the pauses in force, each its latest {@code paused} line: those naming a device first (by
     *     UUID), then those of an index alone (by index); folding them in this order gives the same pauses
     */
    public java.util.List<JournalEvent.GpuPaused> pauses() {
        return java.util.List.copyOf(pauses.values());
    }

    /** @return the peaks {@code vram=auto} learns from (a live view: do not keep it past the state's thread) */
    public PeakHistory peaks() {
        return peaks;
    }

    /** @return every key's record (a read-only view) */
    public Map<String, JobRecord> records() {
        return java.util.Collections.unmodifiableMap(records);
    }
}
