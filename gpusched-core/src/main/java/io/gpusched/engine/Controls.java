package io.gpusched.engine;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.GpuschedException;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEvent;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What users do to a running scheduler besides submitting: cancel a job by its number, and pause or
 * resume a GPU. Both are journaled, so they hold across restarts. Loop thread only.
 */
final class Controls {
    private final Durability durability;
    private final RunningJobs running;
    private final Stops stops;
    private final Outcomes outcomes;
    private final JobsSource source;
    private final Reporter reporter;
    private final SessionSignals signals;
    private final Leases leases;

    Controls(Durability durability, RunningJobs running, Stops stops, Outcomes outcomes, JobsSource source,
             Reporter reporter, SessionSignals signals, Leases leases) {
        this.leases = leases;
        this.signals = signals;
        this.durability = durability;
        this.running = running;
        this.stops = stops;
        this.outcomes = outcomes;
        this.source = source;
        this.reporter = reporter;
    }

    /** @return where the job of this number is: running, pending, ended, or unknown to the journal */
    String state(int no) {
        if (running.all().stream().anyMatch(r -> r.no == no)) {
            return "running";
        }
        for (JobRecord r : durability.state().records().values()) {
            if (r.no().orElse(0) == no) {
                return r.terminal() ? "ended" : "pending";
            }
        }
        return "unknown";
    }

    /** @return who the job of this number runs for, if the journal knows the number */
    Optional<String> owner(int no) {
        for (Map.Entry<String, JobRecord> e : durability.state().records().entrySet()) {
            if (e.getValue().no().orElse(0) == no) {
                return Optional.of(Submissions.owner(durability.state(), e.getKey()));
            }
        }
        return Optional.empty();
    }

    /**
     * @return the file the job of this number writes its output to, when that is not the log
     *     directory's ({@link JobOutput}); empty too when the journal knows no such number
     */
    Optional<java.nio.file.Path> outputFile(int no) {
        for (Map.Entry<String, JobRecord> e : durability.state().records().entrySet()) {
            if (e.getValue().no().orElse(0) == no) {
                return durability.state().submission(e.getKey()).flatMap(JobOutput::file);
            }
        }
        return Optional.empty();
    }

    /**
     * Cancels the job with this display number: a running one is stopped (it ends as cancelled), a
     * pending one is journaled cancelled. A file line cancelled this way stays cancelled, as if its line
     * said {@code cancel}.
     */
    CancelOutcome cancel(int no) {
        Optional<RunningJob> rj = running.all().stream().filter(r -> r.no == no).findFirst();
        if (rj.isPresent()) {
            if (rj.get().stopping.isPresent()) {
                return CancelOutcome.ALREADY_ENDED;
            }
            stops.stop(rj.get(), StopReason.CANCELLED);
            return CancelOutcome.STOPPING;
        }
        for (JobSpec j : source.jobs()) {
            JobRecord r = durability.state().record(j.key());
            if (r.no().orElse(0) != no) {
                continue;
            }
            if (r.terminal() || j.cancel()) {
                return CancelOutcome.ALREADY_ENDED;
            }
            if (r.handle().isPresent() && !(r.handle().get() instanceof io.gpusched.journal.RunHandle.Unknown)) {
                // An orphan of a dead scheduler: its session is stopped; when it is gone it ends as interrupted
                // and, being cancelled now, never runs again.
                signals.terminate(r.runningPgid().getAsLong(), leases.entryOf(r));
            }
            outcomes.cancelledBeforeStart(j, no);
            return CancelOutcome.CANCELLED;
        }
        // Ended submissions leave the queue; the journal still knows them.
        boolean endedBefore = durability.state().records().values().stream()
                .anyMatch(r -> r.no().orElse(0) == no && r.terminal());
        return endedBefore ? CancelOutcome.ALREADY_ENDED : CancelOutcome.NOT_FOUND;
    }

    /** A lease holder's report: see {@code Scheduler.leaseEnded}. */
    io.gpusched.model.LeaseEnd leaseEnded(int no, String token, java.util.OptionalInt status) {
        Optional<String> key = keyOf(no);
        if (key.isEmpty()) {
            return io.gpusched.model.LeaseEnd.NOT_HELD;
        }
        return leases.ended(running.get(key.get()), durability.state().record(key.get()), key.get(), token, status);
    }

    /** @return whether the lease of this number is held under this token (a holder that came back) */
    boolean leaseHeld(int no, String token) {
        Optional<String> key = keyOf(no);
        return key.isPresent() && leases.held(running.get(key.get()), durability.state().record(key.get()), key.get(),
                token);
    }

    private Optional<String> keyOf(int no) {
        for (Map.Entry<String, JobRecord> e : durability.state().records().entrySet()) {
            if (e.getValue().no().orElse(0) == no) {
                return Optional.of(e.getKey());
            }
        }
        return Optional.empty();
    }

    /**
     * Cancels every job of this owner that has not ended, as {@link #cancel(int)} cancels one: running
     * ones, pending ones (waiting to run again too), and orphans of a dead scheduler.
     *
     * @return each job's number and what happened, by number; empty when the owner has no such job
     */
    java.util.SortedMap<Integer, CancelOutcome> cancelAll(String owner) {
        java.util.SortedSet<Integer> nos = new java.util.TreeSet<>();
        for (RunningJob rj : running.all()) {
            if (owner.equals(Submissions.owner(durability.state(), rj.key()))) {
                nos.add(rj.no);
            }
        }
        for (JobSpec j : source.jobs()) {
            JobRecord r = durability.state().record(j.key());
            if (!r.terminal() && !j.cancel() && owner.equals(Submissions.owner(durability.state(), j.key()))) {
                r.no().ifPresent(nos::add);
            }
        }
        java.util.SortedMap<Integer, CancelOutcome> outcomes = new java.util.TreeMap<>();
        nos.forEach(no -> outcomes.put(no, cancel(no)));
        return outcomes;
    }

    /**
     * Pauses or resumes a GPU: running jobs continue; while paused nothing new is placed there, and jobs
     * that need it wait (never infeasible because of a pause).
     *
     * @param known the GPU indices the backend reports
     * @throws GpuschedException for an index the backend does not report
     */
    void pause(int gpu, boolean paused, Set<Integer> known) {
        if (!known.contains(gpu)) {
            throw new GpuschedException("no GPU " + gpu + " here; GPUs: " + known);
        }
        if (durability.state().pausedGpus().contains(gpu) == paused) {
            return;
        }
        durability.record(List.of(new JournalEvent.GpuPaused(JournalEvent.GpuPaused.keyOf(gpu), gpu, paused)));
        reporter.emit(new SchedulerEvent.GpuPauseChanged(reporter.now(), gpu, paused));
    }
}
