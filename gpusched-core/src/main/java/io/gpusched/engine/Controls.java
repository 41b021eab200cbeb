package io.gpusched.engine;

import io.gpusched.engine.ending.Orphans;
import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.stop.Stops;
import io.gpusched.engine.table.JobTable;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.GpuschedException;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.RunHandle;
import java.util.List;
import java.util.Optional;

/**
 * What users do to a running scheduler besides submitting: cancel a job by its number, and pause or
 * resume a GPU. Both are journaled, so they hold across restarts. Loop thread only.
 */
final class Controls {
    private final Durability durability;
    private final JobTable table;
    private final Stops stops;
    private final Outcomes outcomes;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Leases leases;
    private final Orphans orphans;
    private final GpuPauses pauses;

    Controls(Durability durability, JobTable table, Stops stops, Outcomes outcomes, Reporter reporter, LoopClock clock,
             Leases leases, Orphans orphans) {
        this.orphans = orphans;
        this.leases = leases;
        this.durability = durability;
        this.table = table;
        this.stops = stops;
        this.outcomes = outcomes;
        this.reporter = reporter;
        this.clock = clock;
        this.pauses = new GpuPauses(durability, reporter, clock);
    }

    /** @return where the job of this number is; empty when the journal knows no such number */
    Optional<io.gpusched.model.JobStage> state(int no) {
        return table.byNo(no).map(this::stage);
    }

    private io.gpusched.model.JobStage stage(JobTable.Job job) {
        // A run that ended and whose outcome is being settled (its output read as its owner) shows as running
        // until its outcome is journaled: it is neither pending nor ended yet.
        return job.run().isPresent() || table.isSettling(job.key()) ? io.gpusched.model.JobStage.RUNNING
                : job.state().terminal() ? io.gpusched.model.JobStage.ENDED : io.gpusched.model.JobStage.PENDING;
    }

    /** @return who the job of this number runs for, if the journal knows the number */
    Optional<String> owner(int no) {
        return table.byNo(no).map(JobTable.Job::owner);
    }

    /**
     * @return the file the job of this number writes its output to, when that is not the log
     *     directory's ({@link JobOutput}); empty too when the journal knows no such number
     */
    Optional<java.nio.file.Path> outputFile(int no) {
        return table.byNo(no).flatMap(JobTable.Job::submission).flatMap(JobOutput::file);
    }

    /**
     * @return the job of this number's owner, output file and state, read in one step; empty when the
     *     journal knows no such number
     */
    Optional<io.gpusched.model.JobLogs> logs(int no) {
        return table.byNo(no).map(j -> new io.gpusched.model.JobLogs(j.owner(),
                j.submission().flatMap(JobOutput::file), stage(j)));
    }

    /**
     * {@link #cancel(int)} once {@code ownerCheck}, told the job's owner, has not thrown: the check and
     * the cancel in one step, so no job can take the number between them. A number the journal does not
     * know is {@link CancelOutcome#NOT_FOUND} whoever asks, checked against no one.
     */
    CancelOutcome cancel(int no, java.util.function.Consumer<String> ownerCheck) {
        Optional<JobTable.Job> job = table.byNo(no);
        if (job.isEmpty()) {
            return CancelOutcome.NOT_FOUND;
        }
        ownerCheck.accept(job.get().owner());
        return cancel(no);
    }

    /**
     * Cancels the job with this display number: a running one is stopped (it ends as cancelled), a
     * pending one is journaled cancelled. A file line cancelled this way stays cancelled, as if its line
     * said {@code cancel}.
     */
    CancelOutcome cancel(int no) {
        Optional<JobTable.Job> job = table.byNo(no);
        if (job.isEmpty()) {
            return CancelOutcome.NOT_FOUND;
        }
        if (table.isSettling(job.get().key())) {
            // Its command ended; its outcome is on its way (its output is being read): it is not pending,
            // and journaling it cancelled now would give it a second outcome.
            return CancelOutcome.ALREADY_ENDED;
        }
        Optional<RunningJob> rj = job.get().run();
        if (rj.isPresent()) {
            if (rj.get().stopping.isPresent()) {
                return CancelOutcome.ALREADY_ENDED;
            }
            stops.stop(rj.get(), StopReason.CANCELLED);
            return CancelOutcome.STOPPING;
        }
        if (job.get().spec().isEmpty()) {
            // Ended submissions leave the queue; the journal still knows them.
            return job.get().state().terminal() ? CancelOutcome.ALREADY_ENDED : CancelOutcome.NOT_FOUND;
        }
        JobSpec j = job.get().spec().get();
        if (job.get().state().terminal() || j.cancel()) {
            return CancelOutcome.ALREADY_ENDED;
        }
        JobTable.Job r = job.get();
        if (r.startedAs().isPresent() && !(r.startedAs().get() instanceof RunHandle.Unknown)) {
            // An orphan of a dead scheduler no one took up (its leader is gone or not provably its own):
            // what carries its run's entry is stopped; when its session is gone it ends as interrupted and,
            // being cancelled now, never runs again.
            orphans.stopUnadopted(r);
        }
        outcomes.cancelledBeforeStart(j, no);
        return CancelOutcome.CANCELLED;
    }

    /** A lease holder's report: see {@code Scheduler.leaseEnded}. */
    io.gpusched.model.LeaseEnd leaseEnded(int no, String token, java.util.OptionalInt status) {
        Optional<JobTable.Job> job = table.byNo(no);
        if (job.isEmpty()) {
            return io.gpusched.model.LeaseEnd.NOT_HELD;
        }
        return leases.ended(job.get(), token, status);
    }

    /**
     * A holder back after a restart: where the lease is held under this token, its job's result, which
     * completes when the job ends, as the session that queued it would have had it.
     *
     * @return the result to come; empty when the lease is not held so
     */
    Optional<java.util.concurrent.CompletableFuture<io.gpusched.model.JobResult>> leaseAttach(int no, String token) {
        if (!leaseHeld(no, token)) {
            return Optional.empty();
        }
        java.util.concurrent.CompletableFuture<io.gpusched.model.JobResult> result = new java.util.concurrent.CompletableFuture<>();
        outcomes.awaited(table.byNo(no).orElseThrow().id().key(), result);
        return Optional.of(result);
    }

    /** @return whether the lease of this number is held under this token (a holder that came back) */
    boolean leaseHeld(int no, String token) {
        Optional<JobTable.Job> job = table.byNo(no);
        return job.isPresent() && leases.held(job.get(), token);
    }

    /**
     * Cancels every job of this owner that has not ended, as {@link #cancel(int)} cancels one: running
     * ones, pending ones (waiting to run again too), and orphans of a dead scheduler.
     *
     * @return each job's number and what happened, by number; empty when the owner has no such job
     */
    java.util.SortedMap<Integer, CancelOutcome> cancelAll(String owner, List<JobSpec> queue) {
        java.util.SortedSet<Integer> nos = new java.util.TreeSet<>();
        for (RunningJob rj : table.runs()) {
            if (owner.equals(table.owner(rj.key()))) {
                nos.add(rj.no);
            }
        }
        for (JobSpec j : queue) {
            JobTable.Job r = table.job(j.key());
            if (!r.terminal() && !j.cancel() && owner.equals(r.owner()) && r.numbered()) {
                nos.add(r.no());
            }
        }
        java.util.SortedMap<Integer, CancelOutcome> outcomes = new java.util.TreeMap<>();
        nos.forEach(no -> outcomes.put(no, cancel(no)));
        return outcomes;
    }

    /** @return the pauses, read against the GPUs as listed ({@link GpuPauses}) */
    GpuPauses pauses() {
        return pauses;
    }
}
