package io.gpusched.journal;

import io.gpusched.model.JobState;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What the journal knows about one job after folding its events.
 *
 * @param no display number, once seen
 * @param command shell command, once seen
 * @param attempts attempts that ended (OOM retries and the final one)
 * @param state pending, launching, running, or how it ended (the journal spells it as {@link #status()})
 * @param returncode exit code of the terminal attempt
 * @param nextVramMib bumped declaration for the next attempt, after an OOM
 * @param runningPgid process group of an attempt that started and has no outcome yet; present on load
 *     means a previous scheduler died while it ran
 * @param peakMib per-GPU peaks of the terminal attempt
 * @param run run number of the attempt in flight ({@code launching} or {@code running}), when the
 *     journal names one; its pid and exit-status files are found by it
 * @param gpus GPUs of the attempt in flight, or of the last one
 */
public record JobRecord(OptionalInt no, String command, int attempts, JobState state, OptionalInt returncode,
                        OptionalLong nextVramMib, OptionalLong runningPgid, Map<Integer, Long> peakMib,
                        OptionalLong run, List<Integer> gpus) {

    /** Terminal statuses, as the journal spells them: a job in one of these is never dispatched again. */
    public static final Set<String> TERMINAL = java.util.Arrays.stream(JobState.values()).filter(JobState::terminal)
            .map(JobState::journalName).collect(java.util.stream.Collectors.toUnmodifiableSet());

    /**
     * Copies the map and list.
     *
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param attempts see {@link #attempts()}
     * @param state see {@link #state()}
     * @param returncode see {@link #returncode()}
     * @param nextVramMib see {@link #nextVramMib()}
     * @param runningPgid see {@link #runningPgid()}
     * @param peakMib see {@link #peakMib()}
     * @param run see {@link #run()}
     * @param gpus see {@link #gpus()}
     */
    public JobRecord {
        peakMib = Map.copyOf(peakMib);
        gpus = List.copyOf(gpus);
    }

    /**
     * One record for every job never seen (a record is immutable): {@link JournalState#record} answers it
     * for each key the journal does not hold, which a round asks about every queued job.
     */
    private static final JobRecord UNSEEN = new JobRecord(OptionalInt.empty(), "", 0, JobState.PENDING,
            OptionalInt.empty(), OptionalLong.empty(), OptionalLong.empty(), Map.of(), OptionalLong.empty(), List.of());

    /** @return the record of a job never seen */
    public static JobRecord unseen() {
        return UNSEEN;
    }

    /**
     * @return whether an attempt was about to be spawned when the journal ends: a {@code launching}
     *     intent with no {@code started} after it
     */
    public boolean launching() {
        return state == JobState.LAUNCHING;
    }

    /** @return whether the job is done for good */
    public boolean terminal() {
        return state.terminal();
    }

    /** @return the state as the journal spells it: {@code pending}, {@code launching}, {@code running}, {@code ok}, ... */
    public String status() {
        return state.journalName();
    }

    /**
     * @return what the attempt in flight runs as ({@link #runningPgid()} decoded); empty when none started
     *     and has no outcome yet
     */
    public java.util.Optional<RunHandle> handle() {
        return runningPgid.isPresent() ? java.util.Optional.of(RunHandle.ofPgid(runningPgid.getAsLong()))
                : java.util.Optional.empty();
    }

    /**
     * Applies one event for this job. Pure.
     *
     * @param e an event with this job's key
     * @return the new record
     */
    public JobRecord apply(JournalEvent e) {
        if (e instanceof JournalEvent.Seen s) {
            return new JobRecord(OptionalInt.of(s.no()), s.command(), attempts, state, returncode, nextVramMib,
                    runningPgid, peakMib, run, gpus);
        } else if (e instanceof JournalEvent.Submitted s) {
            return new JobRecord(OptionalInt.of(s.no()), s.command(), attempts, state, returncode, nextVramMib,
                    runningPgid, peakMib, run, gpus);
        } else if (e instanceof JournalEvent.Launching l) {
            return new JobRecord(no, command, attempts, JobState.LAUNCHING, returncode, nextVramMib, OptionalLong.empty(),
                    peakMib, OptionalLong.of(l.run()), l.gpus());
        } else if (e instanceof JournalEvent.Started s) {
            // The run number carries over from the intent just before; a journal of the original tool
            // has none.
            return new JobRecord(no, command, attempts, JobState.RUNNING, returncode, nextVramMib, OptionalLong.of(s.pgid()),
                    peakMib, launching() ? run : OptionalLong.empty(), s.gpus());
        } else if (e instanceof JournalEvent.Interrupted || e instanceof JournalEvent.Requeued) {
            return new JobRecord(no, command, attempts, JobState.PENDING, returncode, nextVramMib, OptionalLong.empty(), peakMib,
                    OptionalLong.empty(), gpus);
        } else if (e instanceof JournalEvent.Retry) {
            // A fresh set of attempts, but an OOM's bumped declaration stays: it is what was learned.
            return new JobRecord(no, command, 0, JobState.PENDING, OptionalInt.empty(), nextVramMib, OptionalLong.empty(),
                    Map.of(), OptionalLong.empty(), gpus);
        } else if (e instanceof JournalEvent.SlurmSubmitted || e instanceof JournalEvent.Stopping) {
            // Where an attempt runs, or that it is being stopped, not what became of it: JournalState keeps them.
            return this;
        } else if (e instanceof JournalEvent.Oom o) {
            return new JobRecord(no, command, o.attempts(), JobState.PENDING, returncode,
                    o.nextVramMib().isPresent() ? o.nextVramMib() : nextVramMib, OptionalLong.empty(), peakMib,
                    OptionalLong.empty(), gpus);
        }
        JournalEvent.Done d = (JournalEvent.Done) e;
        return new JobRecord(no, command, attempts + 1, JobState.fromJournal(d.status()),
                OptionalInt.of(d.returncode()), nextVramMib,
                OptionalLong.empty(), d.peakMib(), OptionalLong.empty(), gpus);
    }
}
