package io.gpusched.dashboard;

import io.gpusched.JobResult;
import io.gpusched.JobStatus;
import io.gpusched.Measurement;
import io.gpusched.QueueSnapshot;
import io.gpusched.SchedulerEvent;
import io.gpusched.StatusBoard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The scheduler's metrics, fed by its events: a listener on the scheduler's loop thread that only counts
 * (a few array increments per event) and then publishes one immutable {@link Exposition}, which the HTTP
 * thread reads in a single volatile read, so a scrape never sees half an update.
 *
 * <p>Dispatch latency is measured as the time from the later of the job's arrival (its start minus
 * its wait) and the last moment this scheduler saw GPU capacity come free (a job's end, an OOM retry
 * or requeue, a GPU resumed) to the job's start. A start made possible by something the scheduler does
 * not see as an event (a process it did not launch freeing memory, a reservation running out) counts
 * from the last such event, so it shows as a longer latency than the loop took.
 */
public final class Metrics implements Consumer<SchedulerEvent> {
    /** Seconds: a queue of short test jobs up to a day's wait. */
    static final double[] WAIT_BUCKETS = {0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400, 86400};
    /** Seconds: a quick job up to three days. */
    static final double[] RUN_BUCKETS = {1, 10, 60, 300, 900, 3600, 14400, 43200, 86400, 259200};
    /** Observed peak / declaration: 1 is exact, below is over-declared, above under-declared. */
    static final double[] RATIO_BUCKETS = {0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 4};
    /** Seconds: the loop's reaction, from a millisecond to the poll interval and beyond. */
    static final double[] LATENCY_BUCKETS = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Supplier<Optional<QueueSnapshot>> snapshots;
    private final Histogram waits = new Histogram(WAIT_BUCKETS);
    private final Histogram runs = new Histogram(RUN_BUCKETS);
    private final Histogram ratios = new Histogram(RATIO_BUCKETS);
    private final Histogram latencies = new Histogram(LATENCY_BUCKETS);
    private final Map<String, Long> finished = new TreeMap<>();
    private long started;
    private long running;
    private long pending;
    private long held;
    private List<GpuGauges> gpus = List.of();
    private Optional<Instant> lastFreed = Optional.empty();
    private volatile Exposition published;

    /**
     * @param snapshots the scheduler's {@code snapshot()}: read on each status update, which the loop emits
     *     right after publishing the snapshot it shows, for the GPUs' memory
     */
    public Metrics(Supplier<Optional<QueueSnapshot>> snapshots) {
        this.snapshots = snapshots;
        for (JobStatus s : JobStatus.values()) {
            finished.put(s.journalName(), 0L);
        }
        publish();
    }

    /** One GPU's memory gauges, in MiB. */
    record GpuGauges(int gpu, long totalMib, long usedMib, long declaredMib, long reservedMib, boolean paused,
                     boolean healthy) {
    }

    /**
     * Everything a scrape shows, at one moment.
     *
     * @param started jobs started (attempts), all told
     * @param finished jobs that ended, by status
     * @param running jobs running now
     * @param pending jobs waiting to be placed
     * @param held jobs held back by their dependencies
     * @param gpus each GPU's memory
     * @param waits queue wait histogram, seconds
     * @param runs run time histogram, seconds
     * @param ratios peak / declaration histogram
     * @param latencies dispatch latency histogram, seconds
     */
    record Exposition(long started, Map<String, Long> finished, long running, long pending, long held,
                      List<GpuGauges> gpus, Histogram.Snapshot waits, Histogram.Snapshot runs,
                      Histogram.Snapshot ratios, Histogram.Snapshot latencies) {
    }

    /**
     * Counts one event. Called on the scheduler's loop thread.
     *
     * @param e the event
     */
    @Override
    public void accept(SchedulerEvent e) {
        if (e instanceof SchedulerEvent.JobStarted s) {
            started++;
            waits.observe(seconds(s.waited()));
            Instant arrived = s.at().minus(s.waited());
            Instant from = lastFreed.filter(f -> f.isAfter(arrived)).orElse(arrived);
            latencies.observe(Math.max(0, seconds(Duration.between(from, s.at()))));
        } else if (e instanceof SchedulerEvent.JobFinished f) {
            JobResult r = f.result();
            finished.merge(r.status().journalName(), 1L, Long::sum);
            if (r.measurement() != Measurement.NOT_RUN) {
                runs.observe(seconds(r.duration()));
                freed(f.at());
            }
            if (r.status() == JobStatus.OK && r.attributed() && r.declaredMib().isPresent() && r.declaredMib().getAsLong() > 0) {
                ratios.observe((double) r.overallPeakMib() / r.declaredMib().getAsLong());
            }
        } else if (e instanceof SchedulerEvent.RequeuedAfterOom || e instanceof SchedulerEvent.JobRequeued) {
            freed(e.at());
        } else if (e instanceof SchedulerEvent.GpuPauseChanged p && !p.paused()) {
            freed(p.at());
        } else if (e instanceof SchedulerEvent.StatusUpdated u) {
            queue(u.board());
        } else {
            return;
        }
        publish();
    }

    /** @return what a scrape shows now; safe from any thread */
    Exposition exposition() {
        return published;
    }

    private void freed(Instant at) {
        lastFreed = Optional.of(at);
    }

    private void queue(StatusBoard b) {
        running = b.running().size();
        held = b.pending().stream().filter(StatusBoard.Pending::held).count();
        pending = b.pending().size() - held;
        Optional<QueueSnapshot> snap = snapshots.get();
        if (snap.isPresent()) {
            List<GpuGauges> out = new ArrayList<>();
            for (QueueSnapshot.GpuMemory m : snap.get().memory()) {
                long declared = m.jobs().stream().mapToLong(j -> j.declaredMib().orElse(0)).sum();
                boolean healthy = snap.get().gpus().stream().filter(g -> g.index() == m.gpu()).allMatch(g -> g.healthy());
                out.add(new GpuGauges(m.gpu(), m.totalMib(), m.usedMib(), declared, m.reservedMib(),
                        snap.get().pausedGpus().contains(m.gpu()), healthy));
            }
            gpus = List.copyOf(out);
        }
    }

    private void publish() {
        published = new Exposition(started, Map.copyOf(finished), running, pending, held, gpus, waits.snapshot(),
                runs.snapshot(), ratios.snapshot(), latencies.snapshot());
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /**
     * The exposition as Prometheus text; every metric's name and meaning is here and in docs/monitoring.md.
     *
     * @param x what to show
     * @return the text, ending in a line feed
     */
    static String render(Exposition x) {
        PrometheusText t = new PrometheusText();
        t.gauge("gpusched_queue_jobs", "Jobs in the queue now, by state: running, pending (waiting for room), "
                + "held (waiting for their after= dependencies).", List.of(
                new PrometheusText.Sample(Map.of("state", "running"), x.running()),
                new PrometheusText.Sample(Map.of("state", "pending"), x.pending()),
                new PrometheusText.Sample(Map.of("state", "held"), x.held())));
        t.counter("gpusched_jobs_started_total", "Job attempts started (an OOM retry or a requeued job starts again).",
                List.of(PrometheusText.Sample.of(x.started())));
        List<PrometheusText.Sample> ended = new ArrayList<>();
        new TreeMap<>(x.finished()).forEach((status, n) -> ended.add(new PrometheusText.Sample(Map.of("status", status), n)));
        t.counter("gpusched_jobs_finished_total", "Jobs that reached a final state, by status.", ended);
        t.histogram("gpusched_job_wait_seconds", "Time from a job's submission (or first sight of its jobs-file line) "
                + "to its start, in seconds.", x.waits());
        t.histogram("gpusched_job_run_seconds", "Wall time of each job's last attempt, for jobs that ran, in seconds.",
                x.runs());
        t.histogram("gpusched_declaration_ratio", "Observed peak divided by the declaration, for jobs that ended ok "
                + "with a declaration and measured memory: below 1 over-declared, above 1 under-declared.", x.ratios());
        t.histogram("gpusched_dispatch_latency_seconds", "Time from the later of a job's arrival and the last moment "
                + "GPU capacity came free (a job ended, was requeued, a GPU resumed) to the job's start, in seconds.",
                x.latencies());
        t.gauge("gpusched_gpu_memory_total_mib", "Each GPU's memory, in MiB.", gpu(x, GpuGauges::totalMib));
        t.gauge("gpusched_gpu_memory_used_mib", "Memory in use on each GPU, by any process, in MiB.",
                gpu(x, GpuGauges::usedMib));
        t.gauge("gpusched_gpu_memory_declared_mib", "Sum of the declarations of the jobs running on each GPU, in MiB.",
                gpu(x, GpuGauges::declaredMib));
        t.gauge("gpusched_gpu_memory_reserved_mib", "Memory placement counts as taken on each GPU: other processes' "
                + "use and the running jobs' budgets (total minus headroom), in MiB.", gpu(x, GpuGauges::reservedMib));
        t.gauge("gpusched_gpu_paused", "1 when the GPU is paused (no new job is placed there).",
                gpu(x, g -> g.paused() ? 1 : 0));
        t.gauge("gpusched_gpu_healthy", "1 when the backend reports the GPU healthy.", gpu(x, g -> g.healthy() ? 1 : 0));
        return t.toString();
    }

    private static List<PrometheusText.Sample> gpu(Exposition x, java.util.function.ToLongFunction<GpuGauges> f) {
        return x.gpus().stream().map(g -> new PrometheusText.Sample(Map.of("gpu", String.valueOf(g.gpu())),
                f.applyAsLong(g))).toList();
    }
}
