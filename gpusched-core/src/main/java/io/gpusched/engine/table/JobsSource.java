package io.gpusched.engine.table;

import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Requirements;
import io.gpusched.jobs.RequirementsParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * The queue's source: a live jobs file, or a fixed list, plus jobs submitted through the API.
 *
 * <p><b>Edits while the scheduler reads.</b> People change the file with editors and shells while
 * it is re-read every round, so a read can land in the middle of a save. The rule, applied by
 * {@link StableReader}:
 * <ol>
 *   <li>A round whose file has the same size, mtime and inode as the version last taken costs one
 *       {@code stat}: nothing is read or parsed.</li>
 *   <li><b>Appends are taken at once.</b> If the bytes last taken end with a newline and are a
 *       prefix of the new bytes, the new <em>complete</em> lines are taken in the round that first
 *       sees them: whole lines after whole lines cannot be half-written. (Before anything was taken,
 *       at start, every file counts as an append to nothing.)</li>
 *   <li><b>A last line without a newline waits</b> until the whole file is stable: it may be half
 *       typed, and {@code python train.py --lr 0.0} cut from {@code --lr 0.01} is a different, valid
 *       command.</li>
 *   <li><b>Any other change waits until stable</b>: a rename over the file (vim, VS Code), a
 *       truncate-and-rewrite in place, a deleted, moved or edited line, an emptied file. It is taken
 *       once two reads at least the <em>quiet period</em> apart saw the same size, mtime, inode and
 *       bytes, and neither read overlapped a write (the stat before and after a read agree). Until
 *       then the last good queue stands, so a file caught empty or short mid-save dequeues nothing.</li>
 *   <li>A <b>missing or unreadable</b> file keeps the last good queue. It is reported once, with a
 *       one-line fix, if it lasts the quiet period (a save by rename leaves the name missing for a
 *       moment); the file is taken again as soon as it can be read, by the same rules.</li>
 *   <li>A stable file that does not <b>parse</b> keeps the last good queue, is reported once, and is
 *       not read again until its stat changes.</li>
 * </ol>
 * The quiet period is {@link #quietFor min(200 ms, poll)}. The engine comes back as soon as a
 * waiting change can be decided ({@link #settleNanos()}) and does not end a run while one waits.
 * Worst-case pickup, from the last write: appended complete lines, one poll (the next round);
 * anything else, one poll plus the quiet period (the round that first sees it, then the deciding
 * read). Running jobs never depend on the file, except through the {@code cancel} token.
 *
 * <p>Limits: a writer that pauses longer than the quiet period in the middle of a save cannot be
 * told from one that finished, so its partial file is taken (and replaced when the save ends). A
 * write that keeps size, mtime (to the file system's granularity) and inode is not noticed.
 *
 * <p>Why one file over 300 lines: the file, the submissions, the requirement rules and {@code --auto-vram}
 * make one queue here, under one version that moves with any of them, so the engine can skip work over
 * an unchanged queue; split, each part would need to keep that version right on its own.
 */
public final class JobsSource {
    /** The quiet period unless the poll is shorter. */
    static final Duration DEFAULT_QUIET = Duration.ofMillis(200);

    private final Optional<StableReader> reader;
    private final String name;
    // Re-parses only appended lines when the file grew by appends (the common live edit).
    private final JobsFileParser.Incremental parser;
    private final List<JobSpec> fixed;
    private final List<JobSpec> submitted = new ArrayList<>();
    private List<JobSpec> fromFile = List.of();
    private String lastError;
    private long version;
    private Appended<JobSpec> all;
    // Requirement rules (--requirements): re:read live by the same stability rule as the jobs file.
    private final Optional<StableReader> rulesReader;
    private final String rulesName;
    // Volatile: asQueued reads it from the service's threads (a submission checked before it is queued).
    private volatile Requirements rules;
    private String lastRulesError;
    private Map<String, String> ruleOf = new HashMap<>();

    /**
     * A source with the default quiet period on the system's monotonic clock.
     *
     * @param file live jobs file, if any
     * @param fixed fixed jobs (when there is no file)
     */
    /** Whether a job that declares no memory learns it ({@code --auto-vram}). */
    private final boolean learnUndeclared;

    public JobsSource(Optional<Path> file, List<JobSpec> fixed) {
        this(file, fixed, DEFAULT_QUIET, System::nanoTime);
    }

    /**
     * @param file live jobs file, if any
     * @param fixed fixed jobs (when there is no file)
     * @param quiet how long a changed file must stay the same before it is taken (zero: at once)
     * @param ticker monotonic nanoseconds, as {@link System#nanoTime}
     */
    public JobsSource(Optional<Path> file, List<JobSpec> fixed, Duration quiet, LongSupplier ticker) {
        this(file, fixed, Optional.empty(), Requirements.NONE, quiet, ticker);
    }

    /**
     * @param file live jobs file, if any
     * @param fixed fixed jobs (when there is no file)
     * @param rulesFile the live requirements file, if any
     * @param rules its rules as read at start ({@link Requirements#NONE} without one)
     * @param quiet how long a changed file must stay the same before it is taken (zero: at once)
     * @param ticker monotonic nanoseconds, as {@link System#nanoTime}
     */
    public JobsSource(Optional<Path> file, List<JobSpec> fixed, Optional<Path> rulesFile, Requirements rules, Duration quiet,
               LongSupplier ticker) {
        this(file, fixed, rulesFile, rules, quiet, ticker, false);
    }

    /**
     * @param file live jobs file, if any
     * @param fixed fixed jobs (when there is no file)
     * @param rulesFile the live requirements file, if any
     * @param rules its rules as read at start ({@link Requirements#NONE} without one)
     * @param quiet how long a changed file must stay the same before it is taken (zero: at once)
     * @param ticker monotonic nanoseconds, as {@link System#nanoTime}
     * @param learnUndeclared whether a job that declares no memory learns it ({@code --auto-vram})
     */
    public JobsSource(Optional<Path> file, List<JobSpec> fixed, Optional<Path> rulesFile, Requirements rules, Duration quiet,
               LongSupplier ticker, boolean learnUndeclared) {
        this.learnUndeclared = learnUndeclared;
        this.rulesReader = rulesFile.map(f -> new StableReader(f, quiet, ticker));
        this.rulesName = rulesFile.map(f -> String.valueOf(f.getFileName())).orElse("");
        this.rules = rules;
        this.reader = file.map(f -> new StableReader(f, quiet, ticker));
        this.name = file.map(f -> String.valueOf(f.getFileName())).orElse("");
        this.parser = new JobsFileParser.Incremental(name);
        this.fixed = rekey(fixed);
    }

    /**
     * @param poll the scheduler's poll interval
     * @return the quiet period for it: 200 ms, or the poll if shorter, so a settled change is
     *     taken by the round after the one that saw it
     */
    public static Duration quietFor(Duration poll) {
        return poll.compareTo(DEFAULT_QUIET) < 0 ? poll : DEFAULT_QUIET;
    }

    public boolean live() {
        return reader.isPresent();
    }

    /**
     * @return the jobs file's lines as last taken, before the requirement rules (empty without a file); the
     *     same list instance until a re-read takes a different one, so a caller can tell a change by identity
     */
    public List<JobSpec> fileJobs() {
        return fromFile;
    }

    /** @return the jobs file's name without its directory, as its errors say it; empty without a file */
    public String fileName() {
        return name;
    }

    /**
     * Takes what the stability rule allows of the file's current content.
     *
     * @return a new error to report once, if the file could not be read or parsed
     */
    public Optional<String> refresh() {
        if (reader.isEmpty()) {
            return refreshRules();
        }
        Optional<String> jobsError = refreshJobs();
        Optional<String> rulesError = refreshRules();
        return jobsError.isPresent() ? jobsError : rulesError;
    }

    /**
     * Takes an edited requirements file once it is stable. A bad edit keeps the previous rules and is
     * reported once, as a bad jobs file keeps the previous queue.
     *
     * @return a new error to report once
     */
    private Optional<String> refreshRules() {
        if (rulesReader.isEmpty()) {
            return Optional.empty();
        }
        StableReader r = rulesReader.get();
        StableReader.Look look = r.look();
        if (look instanceof StableReader.Trouble t) {
            return t.report() ? rulesError(t.message().replace("jobs file", "requirements file")
                    .replace("previous queue", "previous rules")) : Optional.empty();
        }
        // A JSON file is taken whole only: its complete lines alone are not a document.
        if (!(look instanceof StableReader.Take take) || !take.whole()) {
            return Optional.empty();
        }
        Requirements parsed;
        try {
            parsed = RequirementsParser.parse(take.bytes(), rulesName);
        } catch (RequirementsParser.RequirementsException e) {
            r.refused(take);
            return rulesError(e.getMessage() + " — keeping the previous rules until the file is fixed");
        }
        r.taken(take);
        lastRulesError = null;
        if (!parsed.equals(rules)) {
            rules = parsed;
            changed();
        }
        return Optional.empty();
    }

    private Optional<String> rulesError(String message) {
        if (Objects.equals(message, lastRulesError)) {
            return Optional.empty();
        }
        lastRulesError = message;
        return Optional.of(message);
    }

    /**
     * @param key a job's key
     * @return the name of the requirement rule (or {@code default}) its declaration came from, if any
     */
    public Optional<String> ruleOf(String key) {
        jobs();
        return Optional.ofNullable(ruleOf.get(key));
    }

    /**
     * A line as the queue will hold it: the requirement rules in force applied, as {@link #jobs()} applies
     * them. Safe from any thread (the rules are an immutable value, swapped whole).
     *
     * @param line the job as submitted
     * @return the job with what the rules imply
     */
    public JobSpec asQueued(JobSpec line) {
        return applied(line).spec();
    }

    private Requirements.Applied applied(JobSpec line) {
        return rules.apply(line, learnUndeclared);
    }

    /** @return the requirement rules now in force */
    Requirements rules() {
        return rules;
    }

    private Optional<String> refreshJobs() {
        if (reader.isEmpty()) {
            return Optional.empty();
        }
        StableReader r = reader.get();
        StableReader.Look look = r.look();
        if (look instanceof StableReader.Unchanged) {
            lastError = null;
            return Optional.empty();
        }
        if (look instanceof StableReader.Trouble t) {
            return t.report() ? error(t.message()) : Optional.empty();
        }
        if (!(look instanceof StableReader.Take take)) {
            return Optional.empty();
        }
        List<JobSpec> parsed;
        try {
            parsed = parser.parse(take.bytes());
        } catch (JobSpecException e) {
            r.refused(take);
            // One event per rejected version: the first bad line in full, the others counted.
            int more = e.badLines() - 1;
            return error(e.getMessage() + (more == 0 ? "" : " (and " + more + " more bad line" + (more == 1 ? "" : "s") + ")")
                    + " — keeping the previous queue until the file is fixed");
        }
        r.taken(take);
        lastError = null;
        if (parsed.size() != fromFile.size() || !parsed.equals(fromFile)) {
            fromFile = parsed;
            lineKeys = null;
            changed();
        }
        return Optional.empty();
    }

    /**
     * @return nanoseconds until a change to the file that is waiting to settle can be decided (the
     *     engine refreshes then, instead of a poll later, and does not end a run before); empty when
     *     nothing waits
     */
    public OptionalLong settleNanos() {
        return reader.map(StableReader::settleNanos).orElse(OptionalLong.empty());
    }

    private Optional<String> error(String message) {
        if (Objects.equals(message, lastError)) {
            return Optional.empty();
        }
        lastError = message;
        return Optional.of(message);
    }

    /**
     * @return a number that changes whenever {@link #jobs()} does (a re-parse that gave a different
     *     list, or a submission), so the engine can skip work over an unchanged queue
     */
    public long version() {
        return version;
    }

    /**
     * @return the {@link #version()} at which jobs last joined the queue or its lines or rules changed; a
     *     version after it moved only by {@link #retire retirements}, which bring the engine no job to
     *     number and no run to take up
     */
    public long joinedVersion() {
        return joinedVersion;
    }

    private long joinedVersion;

    private void changed() {
        version++;
        joinedVersion = version;
        all = null;
        byKey = null;
        appendTo = null;
        toAppend.clear();
    }

    /** The jobs of {@link #jobs()} marked {@code cancel}, built when first asked for after a change. */
    private List<JobSpec> cancelMarked;

    /**
     * @return the jobs of {@link #jobs()} marked {@code cancel}, in queue order (a round applies them
     *     without walking the whole queue)
     */
    public List<JobSpec> cancelMarked() {
        List<JobSpec> jobs = jobs();
        if (cancelMarked == null) {
            cancelMarked = jobs.stream().filter(JobSpec::cancel).toList();
        }
        return cancelMarked;
    }

    /** The keys of the file's lines (or the fixed list's), built when first asked for after the file changed. */
    private java.util.Set<String> lineKeys;

    /**
     * Whether the jobs file (or the fixed list) holds a line of this key now: a line deleted from the
     * file is no longer the queue's, whatever its journal record says. Built once per version of the
     * file, when first asked.
     *
     * @param key a job's key
     * @return whether one of the file's lines has it; false for a submission's key
     */
    public boolean holdsLine(String key) {
        if (lineKeys == null) {
            List<JobSpec> lines = reader.isPresent() ? fromFile : fixed;
            java.util.Set<String> keys = new java.util.HashSet<>(lines.size() * 2);
            for (JobSpec j : lines) {
                keys.add(j.key());
            }
            lineKeys = keys;
        }
        return lineKeys.contains(key);
    }

    /**
     * The file's lines pinned by index, bound to devices ({@link #bindPins}), by key: the line's
     * {@code gpu-ids} as written and as bound. An edit of a line's {@code gpu-ids} binds it again.
     */
    private final Map<String, Bound> boundPins = new HashMap<>();
    /** The lines {@link #bindPins} last looked over, and those of them it has yet to bind. */
    private List<JobSpec> bindScanned;
    private List<JobSpec> toBind = List.of();

    private record Bound(List<String> written, List<String> bound) {
    }

    /**
     * Binds the file's (or fixed list's) lines pinned by index ({@code gpu-ids=1}) to the devices listed
     * at those indices, as a submission's pins are bound when it is accepted: a line is bound the first
     * time the GPUs are read after it is taken (an edited {@code gpu-ids} again), and keeps that binding
     * while the GPUs are renumbered, so it runs on the device that had the index then. Kept in memory: a
     * restarted scheduler binds its lines at its first read. A line whose index has no device with a UUID
     * (simulated GPUs) stays by index, and is tried again at the next read. Looks over the lines only
     * after they changed, and then at those still to bind.
     *
     * @param binder the binding of one line against the GPUs just read; the line itself when nothing is bound
     */
    public void bindPins(java.util.function.UnaryOperator<JobSpec> binder) {
        List<JobSpec> lines = reader.isPresent() ? fromFile : fixed;
        if (lines != bindScanned) {
            bindScanned = lines;
            List<JobSpec> open = new ArrayList<>();
            for (JobSpec line : lines) {
                Bound b = boundPins.get(line.key());
                if (byIndex(line) && (b == null || !b.written().equals(line.scheduling().gpuIds()))) {
                    open.add(line);
                }
            }
            toBind = open;
        }
        if (toBind.isEmpty()) {
            return;
        }
        List<JobSpec> left = new ArrayList<>();
        boolean bound = false;
        for (JobSpec line : toBind) {
            JobSpec b = binder.apply(line);
            if (b.scheduling().gpuIds().equals(line.scheduling().gpuIds())) {
                left.add(line);
            } else {
                boundPins.put(line.key(), new Bound(line.scheduling().gpuIds(), b.scheduling().gpuIds()));
                bound = true;
            }
        }
        toBind = left;
        if (bound) {
            changed();
        }
    }

    private static boolean byIndex(JobSpec line) {
        for (String id : line.scheduling().gpuIds()) {
            if (!id.isEmpty() && Character.isDigit(id.charAt(0))) {
                return true;
            }
        }
        return false;
    }

    /** @return the line with its pins as {@link #bindPins} bound them; the line itself when they are not */
    private JobSpec pinned(JobSpec line) {
        if (boundPins.isEmpty() || !line.scheduling().pinned()) {
            return line;
        }
        Bound b = boundPins.get(line.key());
        if (b == null || !b.written().equals(line.scheduling().gpuIds())) {
            return line;
        }
        io.gpusched.jobs.Scheduling s = line.scheduling();
        return line.toBuilder().scheduling(new io.gpusched.jobs.Scheduling(s.priority(), b.bound(), s.preemptible(),
                s.onTimeout(), s.name(), s.after())).build();
    }

    /** {@link #jobs()} by key, built when first asked for after a change (only controls ask). */
    private Map<String, JobSpec> byKey;

    /**
     * @param key a job's key
     * @return its job as {@link #jobs()} has it; empty when the queue has no such job (a deleted line, a
     *     retired submission)
     */
    Optional<JobSpec> spec(String key) {
        jobs(); // takes the submissions appended since it was built
        if (byKey == null) {
            Map<String, JobSpec> m = new HashMap<>();
            for (JobSpec j : jobs()) {
                m.putIfAbsent(j.key(), j);
            }
            byKey = m;
        }
        return Optional.ofNullable(byKey.get(key));
    }

    /** The jobs in queue order: file (or fixed list) first, then submissions; an immutable list, cached per version. */
    public List<JobSpec> jobs() {
        if (all == null && appendTo != null) {
            all = appended(); // submissions are never marked cancel: cancelMarked holds
        }
        if (all == null) {
            cancelMarked = null;
            List<JobSpec> list = new ArrayList<>(reader.isPresent() ? fromFile : fixed);
            if (!boundPins.isEmpty()) {
                list.replaceAll(this::pinned);
            }
            list.addAll(submitted);
            // Rules are applied here, to the lines as written, so an edit of either file re-derives them.
            Map<String, String> from = new HashMap<>();
            for (int i = 0; i < list.size(); i++) {
                JobSpec line = list.get(i);
                Requirements.Applied a = applied(line);
                list.set(i, a.spec());
                a.rule().ifPresent(rule -> from.put(a.spec().key(), rule));
            }
            ruleOf = from;
            all = Appended.of(list);
        }
        return all;
    }

    /**
     * Removes submissions that ended: they are history, not queue (the journal and the results keep
     * them), and a scheduler that runs for months must not hold every one it ever took.
     *
     * @param keys submission keys
     */
    public void retire(java.util.Set<String> keys) {
        if (keys.isEmpty() || !submitted.removeIf(j -> keys.contains(j.key()))) {
            return;
        }
        List<JobSpec> built = all != null ? all : appendTo != null ? appended() : null;
        if (built == null) {
            changed();
            return;
        }
        // The lines left keep the rules applied when the list was built (the rules did not change since,
        // or it would not be built): a daemon with 100,000 queued must not apply the rules to every line
        // again each time a submission ends. What a rebuild would give, without the rebuild.
        List<JobSpec> kept = new ArrayList<>(built.size());
        for (JobSpec j : built) {
            if (!keys.contains(j.key())) {
                kept.add(j);
            }
        }
        ruleOf.keySet().removeAll(keys);
        if (byKey != null) {
            byKey.keySet().removeAll(keys);
        }
        if (cancelMarked != null && !cancelMarked.isEmpty()) { // most queues mark none: no stream for nothing
            cancelMarked = cancelMarked.stream().filter(j -> !keys.contains(j.key())).toList();
        }
        version++;
        all = Appended.of(kept);
    }

    /**
     * Adds an API submission, queued after the file's jobs and earlier submissions. Its key is its own
     * ({@code s<no>}), never a file line's, so a line with the same command appended later is another job.
     */
    public void submit(JobSpec keyed) {
        submitted.add(keyed);
        if (all == null && appendTo == null) {
            changed();
            return;
        }
        // Appended to the list already built when it is next asked for, instead of built anew: with
        // 100,000 queued a rebuild applies the rules to every line again. One copy per batch.
        if (appendTo == null) {
            appendTo = all;
        }
        toAppend.add(keyed);
        version++;
        joinedVersion = version;
        all = null; // byKey follows in appended(), which spec() brings about
    }

    /** A built {@link #jobs()} that only {@link #toAppend} has to follow: submissions since it was built. */
    private Appended<JobSpec> appendTo;
    private final List<JobSpec> toAppend = new ArrayList<>();

    /** @return {@link #appendTo} with {@link #toAppend} after it, the rules applied to those */
    private Appended<JobSpec> appended() {
        List<JobSpec> added = new ArrayList<>(toAppend.size());
        for (JobSpec keyed : toAppend) {
            Requirements.Applied a = rules.apply(keyed, learnUndeclared);
            added.add(a.spec());
            a.rule().ifPresent(rule -> ruleOf.put(a.spec().key(), rule));
            if (byKey != null) {
                byKey.putIfAbsent(a.spec().key(), a.spec());
            }
        }
        // The list already built is shared, not copied: amortised O(1) per submission at any queue length.
        Appended<JobSpec> list = appendTo.with(added);
        appendTo = null;
        toAppend.clear();
        return list;
    }

    private static List<JobSpec> rekey(List<JobSpec> jobs) {
        Map<String, Integer> seen = new HashMap<>();
        List<JobSpec> out = new ArrayList<>();
        for (JobSpec j : jobs) {
            int occurrence = seen.merge(j.command(), 1, Integer::sum) - 1;
            out.add(withKey(j, JobKeys.key(j.command(), occurrence)));
        }
        return List.copyOf(out);
    }

    private static JobSpec withKey(JobSpec j, String key) {
        return j.withKey(key);
    }
}
