package io.gpusched.dashboard;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.gpu.GpuStat;
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

    /** Bytes in a MiB: the scheduler counts memory in MiB, Prometheus names bytes. */
    static final long MIB = 1024L * 1024;

    private final Supplier<Optional<QueueSnapshot>> snapshots;
    private final BuildInfo build;
    /** When the counters started from 0: what each counter's {@code _created} says. */
    private final Instant created;
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
    /** Each running job's session leader, by number, for {@code /jobs}: written by the loop, read by HTTP threads. */
    private final Map<Integer, Long> pids = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param snapshots the scheduler's {@code snapshot()}: read on each status update, which the loop emits
     *     right after publishing the snapshot it shows, for the GPUs' memory
     */
    public Metrics(Supplier<Optional<QueueSnapshot>> snapshots) {
        this(snapshots, BuildInfo.current());
    }

    /**
     * @param snapshots the scheduler's {@code snapshot()}: read on each status update, which the loop emits
     *     right after publishing the snapshot it shows, for the GPUs' memory
     * @param build what {@code gpusched_build_info} says
     */
    public Metrics(Supplier<Optional<QueueSnapshot>> snapshots, BuildInfo build) {
        this(snapshots, build, Instant.now());
    }

    /**
     * @param snapshots as for {@link #Metrics(Supplier, BuildInfo)}
     * @param build what {@code gpusched_build_info} says
     * @param created when the counters start from 0, for their {@code _created}
     */
    Metrics(Supplier<Optional<QueueSnapshot>> snapshots, BuildInfo build, Instant created) {
        this.snapshots = snapshots;
        this.build = build;
        this.created = created;
        for (JobStatus s : JobStatus.values()) {
            finished.put(s.journalName(), 0L);
        }
        publish();
    }

    /**
     * One GPU's gauges.
     *
     * @param gpu its index
     * @param uuid its UUID, when the backend knows it
     * @param model its product name
     * @param totalMib its memory, MiB
     * @param usedMib in use by anyone, MiB
     * @param declaredMib the running jobs' declarations, MiB
     * @param reservedMib what placement counts as taken, MiB
     * @param utilisation its utilisation 0–1, when it reports one
     * @param paused whether it is paused
     * @param healthy whether the backend calls it healthy
     */
    record GpuGauges(int gpu, Optional<String> uuid, String model, long totalMib, long usedMib, long declaredMib,
                     long reservedMib, java.util.OptionalDouble utilisation, boolean paused, boolean healthy) {
    }

    /**
     * Everything a scrape shows of the scheduler, at one moment.
     *
     * @param build which gpusched this is
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
     * @param created when the counters started counting (this listener's creation, with its scheduler)
     */
    record Exposition(BuildInfo build, Instant created, long started, Map<String, Long> finished, long running, long pending, long held,
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
            pids.put(s.no(), s.pid());
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

    /** @return each running job's session leader by job number, where this listener saw it start; safe from any thread */
    Map<Integer, Long> pids() {
        return Map.copyOf(pids);
    }

    /** @return what a scrape shows now; safe from any thread */
    Exposition exposition() {
        return published;
    }

    private void freed(Instant at) {
        lastFreed = Optional.of(at);
    }

    private void queue(StatusBoard b) {
        java.util.Set<Integer> now = new java.util.HashSet<>();
        b.running().forEach(r -> now.add(r.no()));
        pids.keySet().retainAll(now);
        running = b.running().size();
        held = b.pending().stream().filter(StatusBoard.Pending::held).count();
        pending = b.pending().size() - held;
        Optional<QueueSnapshot> snap = snapshots.get();
        if (snap.isPresent()) {
            List<GpuGauges> out = new ArrayList<>();
            for (QueueSnapshot.GpuMemory m : snap.get().memory()) {
                long declared = m.jobs().stream().mapToLong(j -> j.declaredMib().orElse(0)).sum();
                Optional<GpuStat> stat = snap.get().gpus().stream().filter(g -> g.index() == m.gpu()).findFirst();
                java.util.OptionalDouble util = stat.map(g -> g.utilPercent().isPresent()
                        ? java.util.OptionalDouble.of(Math.min(100, Math.max(0, g.utilPercent().getAsInt())) / 100.0)
                        : java.util.OptionalDouble.empty()).orElse(java.util.OptionalDouble.empty());
                out.add(new GpuGauges(m.gpu(), stat.flatMap(GpuStat::uuid), stat.map(GpuStat::name).orElse(""),
                        m.totalMib(), m.usedMib(), declared, m.reservedMib(), util,
                        snap.get().pausedGpus().contains(m.gpu()), stat.map(GpuStat::healthy).orElse(true)));
            }
            gpus = List.copyOf(out);
        }
    }

    private void publish() {
        published = new Exposition(build, created, started, Map.copyOf(finished), running, pending, held, gpus, waits.snapshot(),
                runs.snapshot(), ratios.snapshot(), latencies.snapshot());
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /**
     * What {@code /metrics} answers: the scheduler's metrics, this process's, and the dashboard's own gauge.
     *
     * @param x the scheduler's metrics at one moment
     * @param eventStreams pages subscribed to {@code /events} now
     * @return Prometheus text, ending in a line feed
     */
    static String scrape(Exposition x, long eventStreams) {
        return render(x) + ProcessMetrics.render(ProcessMetrics.read()) + new PrometheusText().gauge(
                "gpusched_dashboard_event_streams", "Pages subscribed to /events now.",
                List.of(PrometheusText.Sample.of(eventStreams))).toString();
    }

    /**
     * The exposition as Prometheus text; every metric's name and meaning is here and in docs/monitoring.md. Names
     * end in the base unit ({@code _bytes}, {@code _seconds}; ratios are 0–1 and end in {@code _ratio}), as
     * Prometheus's naming guide asks. Counters and histograms count from this scheduler's start
     * ({@code process_start_time_seconds}): they are not kept across restarts, which {@code rate()} and
     * {@code increase()} take as a reset. Each counter {@code X_total} is followed by {@code X_created}, the
     * Unix time in seconds it started counting from, one per labelled series, as the exposition formats
     * define it for counters; in this text format it is a gauge family of its own with its own HELP, so
     * {@code promtool check metrics} finds nothing to say.
     *
     * @param x what to show
     * @return the text, ending in a line feed
     */
    static String render(Exposition x) {
        PrometheusText t = new PrometheusText();
        t.gauge("gpusched_build_info", "Always 1: which gpusched is running, by version and git revision.",
                List.of(new PrometheusText.Sample(Map.of("version", x.build().version(), "revision", x.build().revision()), 1)));
        t.gauge("gpusched_queue_jobs", "Jobs in the queue now, by state: running, pending (waiting for room), "
                + "held (waiting for their after= dependencies).", List.of(
                new PrometheusText.Sample(Map.of("state", "running"), x.running()),
                new PrometheusText.Sample(Map.of("state", "pending"), x.pending()),
                new PrometheusText.Sample(Map.of("state", "held"), x.held())));
        counter(t, x, "gpusched_jobs_started_total", "Job attempts started (an OOM retry or a requeued job starts again), "
                + "since this scheduler started.", List.of(PrometheusText.Sample.of(x.started())));
        List<PrometheusText.Sample> ended = new ArrayList<>();
        new TreeMap<>(x.finished()).forEach((status, n) -> ended.add(new PrometheusText.Sample(Map.of("status", status), n)));
        counter(t, x, "gpusched_jobs_finished_total", "Jobs that reached a final state, by status, since this scheduler "
                + "started.", ended);
        t.histogram("gpusched_job_wait_seconds", "Time from a job's submission (or first sight of its jobs-file line) "
                + "to its start, in seconds.", x.waits());
        t.histogram("gpusched_job_run_seconds", "Wall time of each job's last attempt, for jobs that ran, in seconds.",
                x.runs());
        t.histogram("gpusched_declaration_ratio", "Observed peak divided by the declaration, for jobs that ended ok "
                + "with a declaration and measured memory: below 1 over-declared, above 1 under-declared.", x.ratios());
        t.histogram("gpusched_dispatch_latency_seconds", "Time from the later of a job's arrival and the last moment "
                + "GPU capacity came free (a job ended, was requeued, a GPU resumed) to the job's start, in seconds.",
                x.latencies());
        t.gauge("gpusched_gpu_memory_total_bytes", "Each GPU's memory, in bytes.", gpu(x, g -> g.totalMib() * MIB));
        t.gauge("gpusched_gpu_memory_used_bytes", "Memory in use on each GPU, by any process, in bytes.",
                gpu(x, g -> g.usedMib() * MIB));
        t.gauge("gpusched_gpu_memory_declared_bytes", "Sum of the declarations of the jobs running on each GPU, in "
                + "bytes.", gpu(x, g -> g.declaredMib() * MIB));
        t.gauge("gpusched_gpu_memory_reserved_bytes", "Memory placement counts as taken on each GPU: other processes' "
                + "use and the running jobs' budgets (total minus headroom), in bytes.", gpu(x, g -> g.reservedMib() * MIB));
        t.gauge("gpusched_gpu_utilization_ratio", "Each GPU's utilisation as the backend last read it, 0 to 1 (NVML: the "
                + "share of its last sample period in which a kernel ran); absent for a GPU that does not report it.",
                x.gpus().stream().filter(g -> g.utilisation().isPresent())
                        .map(g -> new PrometheusText.Sample(gpuLabels(g), g.utilisation().getAsDouble())).toList());
        t.gauge("gpusched_gpu_paused", "1 when the GPU is paused (no new job is placed there).",
                gpu(x, g -> g.paused() ? 1 : 0));
        t.gauge("gpusched_gpu_healthy", "1 when the backend reports the GPU healthy.", gpu(x, g -> g.healthy() ? 1 : 0));
        return t.toString();
    }

    /** A counter {@code X_total} and its {@code X_created}: the same series, each the time counting began. */
    private static void counter(PrometheusText t, Exposition x, String name, String help, List<PrometheusText.Sample> samples) {
        t.counter(name, help, samples);
        String base = name.substring(0, name.length() - "_total".length());
        double since = x.created().getEpochSecond() + x.created().getNano() / 1e9;
        t.gauge(base + "_created", "When " + name + " started counting from 0 (this scheduler's start), Unix time in "
                + "seconds.", samples.stream().map(s -> new PrometheusText.Sample(s.labels(), since)).toList());
    }

    private static List<PrometheusText.Sample> gpu(Exposition x, java.util.function.ToLongFunction<GpuGauges> f) {
        return x.gpus().stream().map(g -> new PrometheusText.Sample(gpuLabels(g), f.applyAsLong(g))).toList();
    }

    /**
     * A GPU's labels: {@code gpu} (gpusched's index, as in {@code --gpus} and the logs), {@code uuid} where
     * the backend knows it and {@code model} (its product name). The UUID is NVML's, the one NVIDIA's DCGM
     * exporter labels {@code UUID}, so the two join on it (README: metrics).
     */
    private static Map<String, String> gpuLabels(GpuGauges g) {
        Map<String, String> labels = new java.util.HashMap<>();
        labels.put("gpu", String.valueOf(g.gpu()));
        g.uuid().ifPresent(u -> labels.put("uuid", u));
        if (!g.model().isEmpty()) {
            labels.put("model", g.model());
        }
        return labels;
    }
}
