package io.gpusched.cli;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.TerminalText;
import io.gpusched.model.Verdict;
import java.io.PrintStream;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Renders scheduler events as the original tool's log lines, e.g.
 * {@code [14:02:10] job 1 started on gpu [0] (1/3 dispatched, declared 18432 MiB/gpu) — CMD}; a share of one GPU
 * adds what it came to, {@code declared 12000 MiB/gpu (0.5 of gpu1)}.
 */
final class LogRenderer implements Consumer<SchedulerEvent> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private final PrintStream out;
    private final double tolerance;
    private final boolean colour;
    /** Whether the run reads a jobs file (else only submissions feed it). */
    private boolean live = true;
    /** The run was drained: its end is that, not an interruption. */
    private boolean drained;
    /** The stop left the running jobs running: the end says so, not "run the same command again". */
    private boolean leftRunning;
    /** How many running jobs that stop left running (0: none was, and the end does not say they go on). */
    private int keptRunning;
    /**
     * The jobs taken up from a previous scheduler that still run: the queue's dispatched jobs count them
     * (they run), though this run started none of them, and a start's line says how many there are.
     */
    private final java.util.Set<Integer> takenUp = new java.util.HashSet<>();

    LogRenderer(PrintStream out, double tolerance) {
        this(out, tolerance, false);
    }

    LogRenderer(PrintStream out, double tolerance, boolean colour) {
        this.out = out;
        this.tolerance = tolerance;
        this.colour = colour;
    }

    @Override
    public void accept(SchedulerEvent e) {
        String line = render(e);
        if (line != null) {
            out.println("[" + TIME.format(e.at()) + "] " + (colour ? Colour.paint(line) : line));
            out.flush();
        }
    }

    /** Keeps {@link #takenUp}: a job joins it when taken up, and leaves it when it ends, goes back to the queue or starts again. */
    private void followTakenUp(SchedulerEvent e) {
        if (e instanceof SchedulerEvent.OrphanAdopted o) {
            takenUp.add(o.no());
        } else if (e instanceof SchedulerEvent.JobFinished f) {
            takenUp.remove(f.result().no());
        } else if (e instanceof SchedulerEvent.JobRequeued q) {
            takenUp.remove(q.no());
        } else if (e instanceof SchedulerEvent.RequeuedAfterOom o) {
            takenUp.remove(o.no());
        } else if (e instanceof SchedulerEvent.OrphanRequeued o) {
            takenUp.remove(o.no());
        } else if (e instanceof SchedulerEvent.JobStarted s) {
            takenUp.remove(s.no());
        }
    }

    /**
     * @return the event's log line (several, for the run's summary), without its time; null for an event
     *     the log does not show. Whatever a user chose (a command, an {@code after=} name, a rule's name,
     *     a failure's cause with a path in it, a warning's message) is in it only as
     *     {@link TerminalText#escape} writes it: the log is printed on root's terminal and kept by journald.
     */
    String render(SchedulerEvent e) {
        String line = line(e);
        // One escape of the whole line rather than one at each user's text: a command, reason, cause, name
        // or path in a warning all pass it, and so will the next field someone adds to a line. The words
        // of the lines are printable, so it leaves them as they are. The summary's lines are escaped one
        // at a time where it is made, as the line breaks between them are its own.
        return line == null || e instanceof SchedulerEvent.RunFinished ? line : TerminalText.escape(line);
    }

    private String line(SchedulerEvent e) {
        followTakenUp(e);
        if (e instanceof SchedulerEvent.RunStarted r) {
            live = r.live();
            // Only a live queue has a file to poll: a static one was read once, a daemon's comes over its socket.
            // After a restart the queue's jobs include those the last scheduler left running: said, as the lines
            // after it say which are taken up again and which, their run gone, queued again.
            return r.jobs() + (r.jobs() == 1 ? " job" : " jobs") + " queued"
                    + (r.leftRunning() == 0 ? "" : r.jobs() == 1 ? ", running when the last scheduler stopped"
                    : ", " + r.leftRunning() + " of them running when the last scheduler stopped") + " ["
                    + (r.live() ? "live queue (file re-read each round)" : "static queue") + "] ("
                    + (r.live() ? "file and GPUs" : "GPUs") + " polled every " + seconds(r.poll())
                    + "s; a job that ends frees its GPUs at once;"
                    + " backend: " + r.backend()
                    + r.statusBoard().map(p -> "; status board: " + p).orElse("") + ")";
        } else if (e instanceof SchedulerEvent.GpusDiscovered g) {
            return "discovered GPUs: " + g.gpus();
        } else if (e instanceof SchedulerEvent.JobStarted s) {
            String declared = s.declaredMib().isPresent()
                    ? ", declared " + s.declaredMib().getAsLong() + " MiB/gpu"
                    + s.share().map(f -> " (" + f + " of gpu" + s.gpus().get(0) + ")").orElse("")
                    + s.rule().map(r -> " (rule \"" + r + "\")").orElse("")
                    + s.learned().map(l -> " (" + l + ")").orElse("")
                    : ", undeclared (exclusive idle GPU" + s.learned().map(l -> "; " + l).orElse("") + ")";
            return "job " + s.no() + " started on gpu [" + join(s.gpus()) + "] (" + s.dispatched() + "/" + s.total()
                    + " dispatched" + (takenUp.isEmpty() ? "" : ", " + takenUp.size() + " taken up")
                    + (s.attempt() > 1 ? ", attempt " + s.attempt() : "") + declared + ") — " + s.command();
        } else if (e instanceof SchedulerEvent.VramGrew v) {
            return "job " + v.no() + " vram now " + usage(v.currentMib()) + " (peak " + v.peakMib() + " MiB)";
        } else if (e instanceof SchedulerEvent.ExceededDeclaration x) {
            long pct = Math.round(100.0 * (x.observedMib() / (double) x.declaredMib() - 1));
            return "WARN  job " + x.no() + " EXCEEDS declared VRAM: " + x.observedMib() + " MiB observed on gpu " + x.gpu()
                    + x.uuid().map(u -> " (" + u + ")").orElse("")
                    + " vs " + x.declaredMib() + " MiB declared (+" + pct + "%) — neighbors may OOM";
        } else if (e instanceof SchedulerEvent.JobFinished f) {
            return finished(f.result());
        } else if (e instanceof SchedulerEvent.RequeuedAfterOom o) {
            String bump = o.nextMib().isPresent()
                    ? " with vram " + (o.oldMib().isPresent() ? String.valueOf(o.oldMib().getAsLong()) : "n/a") + " → "
                    + o.nextMib().getAsLong() + " MiB" : "";
            return "↻ job " + o.no() + " hit CUDA OOM (attempt " + o.attempt() + "/" + o.maxAttempts() + ") — requeued" + bump;
        } else if (e instanceof SchedulerEvent.JobRequeued q) {
            return "↻ job " + q.no() + " requeued after " + seconds(q.ran()) + "s ("
                    + (q.why() == SchedulerEvent.StopReason.PREEMPTED ? "preempted" : "time slice") + "; not a failure)";
        } else if (e instanceof SchedulerEvent.Reserved r) {
            // e.g. "gpu0, gpu1 reserved for job 7, waiting 31m — later jobs use them only if sure to end first"
            return r.reservation().describe() + (r.reservation().preempting().isEmpty() ? "" : "; preempting job "
                    + r.reservation().preempting().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")))
                    + " — later jobs use them only if sure to end first";
        } else if (e instanceof SchedulerEvent.DependencyFailed d) {
            return "WARN  job " + d.no() + " DEPENDENCY FAILED — " + d.reason() + "; not run: " + d.command();
        } else if (e instanceof SchedulerEvent.JobInfeasible i) {
            return "WARN  job " + i.no() + " INFEASIBLE — " + i.reason() + "; marking failed: " + i.command();
        } else if (e instanceof SchedulerEvent.JobStopping s) {
            if (s.resumed()) {
                // Its warning ("was being cancelled when the last scheduler ended …") says it; "SIGTERM to its
                // session" here would claim a signal this scheduler may not have sent.
                return null;
            }
            if (s.maxJobTime()) {
                // The daemon's limit, not the job's: say which, so its user does not look for a timeout= they never wrote.
                String over = "job " + s.no() + " over --max-job-time after " + seconds(s.elapsed()) + "s (limit "
                        + s.limit().map(LogRenderer::seconds).orElse("?") + "s) — SIGTERM; ";
                return s.why() == SchedulerEvent.StopReason.TIME_SLICE ? over + "it goes to the end of the queue"
                        : "WARN  " + over + "it ends timeout";
            }
            switch (s.why()) {
                case CANCELLED:
                    return "WARN  job " + s.no() + " CANCELLED by user — SIGTERM to its session";
                case TIMEOUT:
                    return "WARN  job " + s.no() + " TIMEOUT after " + seconds(s.elapsed()) + "s (limit "
                            + s.limit().map(LogRenderer::seconds).orElse("?") + "s) — SIGTERM";
                case TIME_SLICE:
                    return "job " + s.no() + " time slice over after " + seconds(s.elapsed()) + "s — SIGTERM; it goes to "
                            + "the end of the queue";
                case PREEMPTED:
                    return "job " + s.no() + " PREEMPTED after " + seconds(s.elapsed()) + "s for a higher-priority job — "
                            + "SIGTERM; it is requeued";
                default:
                    return null;
            }
        } else if (e instanceof SchedulerEvent.KillEscalated k) {
            return "WARN  job " + k.no() + " did not exit " + seconds(k.grace()) + "s after SIGTERM — SIGKILL";
        } else if (e instanceof SchedulerEvent.AlreadyCompleted a) {
            return "job " + a.no() + " already completed ok — skipping (journal): " + a.command();
        } else if (e instanceof SchedulerEvent.AlreadyEnded a) {
            return alreadyEnded(a);
        } else if (e instanceof SchedulerEvent.EndedJobEdited x) {
            return "WARN  job " + x.no() + " was edited, but it already ended (" + x.status().journalName()
                    + ") and keeps that outcome: an edit that keeps the command keeps the job's identity. "
                    + (x.status().isFailure() ? "Run it again with --retry-failed, or change" : "To run it again, change")
                    + " its command (e.g. add a comment: cmd # 2): " + x.command();
        } else if (e instanceof SchedulerEvent.JournalCompacted c) {
            return "journal compacted: " + c.bytesBefore() + " → " + c.bytesAfter() + " bytes (its folded state, written back)";
        } else if (e instanceof SchedulerEvent.GpuPauseChanged p) {
            return p.paused() ? "gpu " + p.gpu() + " paused — running jobs continue; no new job starts there until it is resumed"
                    : "gpu " + p.gpu() + " resumed";
        } else if (e instanceof SchedulerEvent.OrphanFound o) {
            return "WARN  job " + o.no() + " is still running as an ORPHAN of a previous scheduler (pgid " + o.pgid()
                    + ") — not re-dispatching; wait for it or kill it: kill -TERM -" + o.pgid();
        } else if (e instanceof SchedulerEvent.OrphanAdopted o) {
            return "job " + o.no() + " is still running from a previous scheduler" + (o.pgid().isPresent() ? " (pgid "
                    + o.pgid().getAsLong() + ")" : " (an srun command in its terminal)") + " — taken up again, not"
                    + " re-dispatched: its GPUs stay held, its memory is measured from now on; gpusched cancel " + o.no()
                    + " stops it";
        } else if (e instanceof SchedulerEvent.OrphanRequeued o) {
            return "job " + o.no() + " was interrupted mid-run by a previous scheduler's death — re-queuing";
        } else if (e instanceof SchedulerEvent.JobsFileRejected r) {
            return "WARN  " + r.message();
        } else if (e instanceof SchedulerEvent.BackendFailed b) {
            return "WARN  GPU query failed (" + b.message() + "); attempt " + b.consecutive()
                    + (b.dispatchPaused() ? " — dispatch paused until it answers; running jobs keep running and are still reaped" : "");
        } else if (e instanceof SchedulerEvent.BackendRecovered r) {
            return "GPU backend answering again after " + r.failures() + " failed " + (r.failures() == 1 ? "query" : "queries")
                    + " — dispatch resumed";
        } else if (e instanceof SchedulerEvent.Warning w) {
            return "WARN  " + w.message();
        } else if (e instanceof SchedulerEvent.Drained d) {
            return !d.watching() ? null : live ? "queue drained — watching jobs file for new lines (Ctrl-C to stop)"
                    : "queue drained — waiting for submissions (Ctrl-C to stop)";
        } else if (e instanceof SchedulerEvent.Draining d) {
            drained = true;
            return "draining (gpusched drain): no job starts from now on; " + (d.running() == 0 ? "none is running, so this"
                    + " ends now" : "this ends once the " + d.running() + " running job" + (d.running() == 1 ? " ends" : "s end"))
                    + (d.waiting() == 0 ? "" : "; " + d.waiting() + " queued job" + (d.waiting() == 1 ? " waits" : "s wait")
                    + " in the journal for the next start");
        } else if (e instanceof SchedulerEvent.Stopping s && s.jobsKeepRunning()) {
            leftRunning = true;
            keptRunning = s.running();
            // A job being cancelled or timed out is running too: the stop waits for it (up to the kill grace).
            String ending = s.beingStopped() == 0 ? "" : s.beingStopped() + " job" + (s.beingStopped() == 1 ? "" : "s")
                    + " being cancelled or timed out " + (s.beingStopped() == 1 ? "is" : "are") + " seen to "
                    + (s.beingStopped() == 1 ? "its" : "their") + " end first (SIGKILL after the kill grace)";
            if (s.running() == 0) {
                return "stopping: " + (ending.isEmpty() ? "no job is running" : ending + "; no other job is running");
            }
            return "stopping: " + s.running() + " running job" + (s.running() == 1 ? " keeps" : "s keep") + " running; the"
                    + " next gpusched serve on this state takes " + (s.running() == 1 ? "it" : "them") + " up"
                    + (ending.isEmpty() ? "" : "; " + ending);
        } else if (e instanceof SchedulerEvent.Stopping s) {
            return "WARN  interrupted — terminating " + s.running() + " running job" + (s.running() == 1 ? "" : "s")
                    + " (SIGTERM, then SIGKILL after the grace); they will run again on restart";
        } else if (e instanceof SchedulerEvent.RunFinished f && leftRunning) {
            return "stopped — " + jobsFinished(f.summary().results().size()) + " in this run; " + (keptRunning == 0
                    ? "none was left running" : (keptRunning == 1 ? "the running one goes on" : "the running ones go on")
                    + ", for the next gpusched serve") + " (exit " + f.summary().exitCode() + ")";
        } else if (e instanceof SchedulerEvent.RunFinished f && drained) {
            // Said of whatever is queued, without a count: submissions are still taken while it drains.
            return "drained — " + jobsFinished(f.summary().results().size()) + " in this run; whatever is queued runs on the"
                    + " next start";
        } else if (e instanceof SchedulerEvent.RunFinished f) {
            return summary(f.summary());
        }
        return null;
    }

    /** Ok jobs keep the original's line ({@link SchedulerEvent.AlreadyCompleted}); the rest are said here. */
    private static String alreadyEnded(SchedulerEvent.AlreadyEnded a) {
        String outcome = a.status().journalName() + (a.status() == JobStatus.CANCELLED ? "" : ", exit " + a.exitCode());
        if (a.runAgain()) {
            return "job " + a.no() + " ended " + outcome + " in an earlier run — running it again (--retry-failed): "
                    + a.command();
        }
        if (a.status() == JobStatus.OK) {
            return null;
        }
        String how = a.status() == JobStatus.CANCELLED ? "cancelled jobs stay cancelled"
                : "--retry-failed runs it again";
        return "job " + a.no() + " already ended " + outcome + " in an earlier run — not run again (journal; " + how
                + "): " + a.command();
    }

    private String finished(JobResult r) {
        if (r.status() == JobStatus.INFEASIBLE || r.status() == JobStatus.DEPENDENCY_FAILED) {
            return null;
        }
        if (r.status() == JobStatus.CANCELLED && r.gpus().isEmpty()) {
            return "job " + r.no() + " cancelled before start: " + r.command();
        }
        String label = switch (r.status()) {
            case CANCELLED -> "CANCELLED";
            case TIMEOUT -> "TIMEOUT";
            case FAILED_OOM -> "OOM (exit " + r.exitCode() + ", retries exhausted)";
            default -> r.exitCode() == 0 ? "OK" : "EXIT " + r.exitCode();
        };
        String peaks = r.attributed() ? usage(r.peakMib()) : "n/a (" + switch (r.measurement()) {
            case UNWATCHED -> "it ended while no scheduler watched";
            case NOT_VISIBLE -> "its GPU processes are not visible from here — see docs/backends.md, When attribution cannot work";
            default -> "no GPU memory seen";
        } + ")";
        String took = r.measurement() == Measurement.UNWATCHED && r.duration().isZero() ? "in an unknown time"
                : "in " + seconds(r.duration()) + "s";
        StringBuilder line = new StringBuilder("job " + r.no() + " finished [" + label + "] " + took
                + r.cause().map(c -> " — " + c).orElse("") + " — peak vram " + peaks);
        OptionalLong est = r.declaredMib();
        if (est.isPresent() && r.status() == JobStatus.OK && r.attributed()) {
            long d = est.getAsLong();
            // What a learned declaration was learned from goes with its verdict: the next run learns from this one.
            String from = r.learned().map(l -> " (" + l + ")").orElse("");
            double peak = r.overallPeakMib();
            if (r.verdict() == Verdict.OVER) {
                line.append(" | declared ").append(d).append(" MiB").append(from).append(" → UNDER-DECLARED (+")
                        .append(Math.round(100 * (peak / d - 1))).append("%); raise it");
            } else if (r.verdict() == Verdict.UNDER) {
                line.append(" | declared ").append(d).append(" MiB").append(from).append(" → over-declared (-")
                        .append(Math.round(100 * (1 - peak / d))).append("%); lowering it frees packing headroom");
            } else {
                line.append(" | declared ").append(d).append(" MiB").append(from).append(" → within ±").append(Math.round(tolerance * 100)).append("%");
            }
        }
        if (r.status() == JobStatus.OK && r.attributed() && r.learned().isPresent() && est.isEmpty()) {
            line.append(" | vram=auto: next run declares ").append(r.overallPeakMib()).append(" MiB + spike buffer");
        }
        r.avgUtilPercent().ifPresent(u -> line.append(" | avg gpu util ").append(Math.round(u)).append("%"));
        return line.toString();
    }

    /**
     * The whole queue: this run's outcomes and, marked, the earlier ones a re-run did not repeat, so a
     * re-run of a queue with failures still says so (and exits non-zero).
     */
    private static String summary(RunSummary s) {
        if (s.interrupted()) {
            return "interrupted — " + jobsFinished(s.results().size()) + " in this run; run the same command again to resume"
                    + " (exit " + s.exitCode() + ")";
        }
        List<JobResult> all = s.all();
        long cancelled = s.count(JobStatus.CANCELLED);
        long failed = all.stream().filter(r -> r.status().isFailure()).count();
        StringBuilder b = new StringBuilder("all " + all.size() + " jobs done — "
                + (all.size() - failed - cancelled) + " ok, " + failed + " failed, " + cancelled + " cancelled, "
                + s.count(Verdict.OVER) + " under-declared vram, " + s.count(Verdict.UNDER) + " over-declared vram");
        if (!s.earlier().isEmpty()) {
            b.append(" (").append(s.earlier().size()).append(" of them ended in an earlier run)");
        }
        List<JobResult> failures = new java.util.ArrayList<>(all);
        failures.removeIf(r -> !r.status().isFailure());
        failures.sort(java.util.Comparator.comparingInt(JobResult::no));
        for (JobResult r : failures) {
            b.append(System.lineSeparator()).append(TerminalText.escape("  failed: job " + r.no() + " ("
                    + r.status().journalName() + ", exit " + r.exitCode() + r.cause().map(c -> ", " + c).orElse("")
                    + (s.earlier().contains(r) ? ", earlier run" : "") + ") — " + r.command()));
        }
        return b.toString();
    }

    private static String jobsFinished(int n) {
        return n + (n == 1 ? " job" : " jobs") + " finished";
    }

    private static String join(java.util.List<Integer> gpus) {
        return gpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** @return per-GPU peaks as the log writes them: {@code gpu0:3018 MiB, gpu1:2990 MiB} */
    static String usage(Map<Integer, Long> mib) {
        return new java.util.TreeMap<>(mib).entrySet().stream()
                .map(x -> "gpu" + x.getKey() + ":" + x.getValue() + " MiB").collect(Collectors.joining(", "));
    }

    static String seconds(Duration d) {
        double s = d.toNanos() / 1e9;
        return s >= 10 || s == Math.rint(s) ? String.valueOf(Math.round(s)) : String.format(java.util.Locale.ROOT, "%.1f", s);
    }
}
