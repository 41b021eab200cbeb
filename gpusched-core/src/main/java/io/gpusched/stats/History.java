package io.gpusched.stats;

import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A journal's entries folded into jobs and their runs, with every time the lines carry. Unlike the
 * scheduler's fold (which keeps where each job stands), this keeps what happened: each run from its
 * {@code started} line to the line that ended it.
 */
final class History {
    /** A job's status while it has a run without an end. */
    static final String RUNNING = "running";
    /** A job's status while it waits (never started, or to run again). */
    static final String PENDING = "pending";

    /** One run of a job: a {@code started} line and the line that ended it, if any yet. */
    static final class Run {
        final Job job;
        final List<Integer> gpus;
        final OptionalLong startMillis;
        /** The run's declaration, MiB per GPU: its {@code started} line's, else inferred from the job's lines. */
        final OptionalLong declaredMib;
        OptionalLong endMillis = OptionalLong.empty();
        /** How it ended: a terminal status, {@code oom}, {@code interrupted}, {@code requeued}; empty while open. */
        Optional<String> ending = Optional.empty();
        /** Per-GPU peaks, MiB, of the run that ended the job (the only run whose peak the journal keeps). */
        Map<Integer, Long> peakMib = Map.of();

        Run(Job job, List<Integer> gpus, OptionalLong startMillis, OptionalLong declaredMib) {
            this.job = job;
            this.gpus = List.copyOf(gpus);
            this.startMillis = startMillis;
            this.declaredMib = declaredMib;
        }

        boolean open() {
            return ending.isEmpty();
        }
    }

    /** One job: its number, owner, when it was queued, its runs and where it stands. */
    static final class Job {
        final String key;
        int no;
        String owner;
        /** Whether a {@code submitted} line names its owner; else it is a jobs-file line. */
        boolean submitted;
        /** {@code submitted_at_ms}, or the time of its first {@code seen} line. */
        OptionalLong queuedMillis = OptionalLong.empty();
        /** Its declaration for the next run, as far as the lines tell: the submission's, an OOM's bump. */
        OptionalLong declaredMib = OptionalLong.empty();
        final List<Run> runs = new ArrayList<>();
        String status = PENDING;
        /** When its last {@code done} line was written, if it says. */
        OptionalLong endedMillis = OptionalLong.empty();
        /** Per-GPU peaks, MiB, from its last {@code done} line; empty when nothing was measured. */
        Map<Integer, Long> peakMib = Map.of();

        Job(String key, String owner) {
            this.key = key;
            this.owner = owner;
        }

        boolean ended() {
            return JobRecord.TERMINAL.contains(status);
        }

        Optional<Run> openRun() {
            return runs.isEmpty() || !runs.get(runs.size() - 1).open() ? Optional.empty()
                    : Optional.of(runs.get(runs.size() - 1));
        }

        /** The declaration its verdict is judged by: that of its last run, else the one it would run with. */
        OptionalLong finalDeclaredMib() {
            return runs.isEmpty() ? declaredMib : runs.get(runs.size() - 1).declaredMib;
        }
    }

    final List<Job> jobs;
    /** Every time any line carries ({@code at_ms}, {@code submitted_at_ms}), or empty when none does. */
    final OptionalLong firstMillis;

    private History(List<Job> jobs, OptionalLong firstMillis) {
        this.jobs = jobs;
        this.firstMillis = firstMillis;
    }

    /**
     * @param entries a journal's lines, in file order
     * @param fileJobsOwner whom jobs-file lines (no {@code submitted} line) belong to
     * @return the jobs, in order of first mention
     */
    static History of(List<JournalEntry> entries, String fileJobsOwner) {
        Map<String, Job> jobs = new LinkedHashMap<>();
        long first = Long.MAX_VALUE;
        for (JournalEntry entry : entries) {
            JournalEvent e = entry.event();
            if (entry.atMillis().isPresent()) {
                first = Math.min(first, entry.atMillis().getAsLong());
            }
            // Not jobs: a GPU's pause, a compaction's numbers and the peaks it kept.
            if (e instanceof JournalEvent.GpuPaused || e instanceof JournalEvent.Compacted
                    || e instanceof JournalEvent.Learned) {
                continue;
            }
            Job job = jobs.computeIfAbsent(e.key(), k -> new Job(k, fileJobsOwner));
            if (e instanceof JournalEvent.Submitted s) {
                first = Math.min(first, s.submittedAtMillis());
            }
            apply(job, e, entry.atMillis());
        }
        return new History(List.copyOf(jobs.values()),
                first == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(first));
    }

    private static void apply(Job job, JournalEvent e, OptionalLong at) {
        if (e instanceof JournalEvent.Seen s) {
            job.no = s.no();
            if (job.queuedMillis.isEmpty()) {
                job.queuedMillis = at;
            }
        } else if (e instanceof JournalEvent.Submitted s) {
            job.no = s.no();
            job.owner = s.owner();
            job.submitted = true;
            job.queuedMillis = OptionalLong.of(s.submittedAtMillis());
            job.declaredMib = s.vramMib();
        } else if (e instanceof JournalEvent.Started s) {
            Optional<Run> open = job.openRun();
            // The same run said again (a launch settled after a restart): still the one run.
            if (open.isPresent() && open.get().gpus.equals(s.gpus())) {
                return;
            }
            open.ifPresent(r -> end(r, at, "interrupted"));
            job.runs.add(new Run(job, s.gpus(), at, s.vramMib().isPresent() ? s.vramMib() : job.declaredMib));
            job.status = RUNNING;
        } else if (e instanceof JournalEvent.Interrupted) {
            endRun(job, at, "interrupted");
        } else if (e instanceof JournalEvent.Requeued) {
            endRun(job, at, "requeued");
        } else if (e instanceof JournalEvent.Oom o) {
            endRun(job, at, "oom");
            if (o.nextVramMib().isPresent()) {
                job.declaredMib = o.nextVramMib();
            }
        } else if (e instanceof JournalEvent.Retry) {
            endRun(job, at, "interrupted");
        } else if (e instanceof JournalEvent.Done d) {
            job.openRun().ifPresent(r -> {
                end(r, at, d.status());
                r.peakMib = d.peakMib();
            });
            job.status = d.status();
            job.endedMillis = at;
            job.peakMib = d.peakMib();
        }
        // launching: the started line that follows is the run.
    }

    private static void endRun(Job job, OptionalLong at, String ending) {
        job.openRun().ifPresent(r -> end(r, at, ending));
        job.status = PENDING;
    }

    private static void end(Run r, OptionalLong at, String ending) {
        r.endMillis = at;
        r.ending = Optional.of(ending);
    }
}
