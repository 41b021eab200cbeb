package io.gpusched.stats;

import io.gpusched.model.Verdict;
import io.gpusched.journal.JournalEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Computes {@code gpusched stats}' figures from a journal's entries. Pure: no clock, no files.
 *
 * <p>What is counted, for a period from its start to its end:
 * <ul>
 *   <li>jobs: those that ended in the period, by final status, and those still running or pending; with no
 *       start given ({@code --since}), every job the journal holds;</li>
 *   <li>GPU-hours: each run's GPUs × its time within the period; a run the journal gives no end counts until
 *       the period's end;</li>
 *   <li>waits: jobs that first started in the period, from when they were queued to that start;</li>
 *   <li>utilisation: per GPU, the time within the period at least one run held it, over the period;</li>
 *   <li>declarations: the jobs counted that ended {@code ok} with a declaration and a measured peak.</li>
 * </ul>
 * Lines without a time cannot be placed in the period: they are left out and counted in {@link Stats.Notes}.
 */
public final class JournalStats {
    private JournalStats() {
    }

    /**
     * @param entries a journal's lines, in file order
     * @param query the period, the user and the tolerance
     * @return the figures, in all and per owner, and the chart's bars
     */
    public static Stats compute(List<JournalEntry> entries, StatsQuery query) {
        return compute(entries, query, false);
    }

    /**
     * As {@link #compute}, for a caller who may see only the query's user's jobs ({@code stats} over a root
     * daemon's socket): besides the figures, what {@link #compute} takes from every job is taken from theirs
     * alone, so nothing in the result tells of another user's jobs: the GPUs listed (and so the utilisation
     * and per-GPU lanes) are those their runs used, and without a start the period runs from their jobs'
     * earliest time, not the journal's.
     *
     * @param entries a journal's lines, in file order
     * @param query the period, the user (required) and the tolerance
     * @return the figures of that user's jobs alone
     * @throws IllegalArgumentException when the query names no user
     */
    public static Stats computeOwn(List<JournalEntry> entries, StatsQuery query) {
        if (query.user().isEmpty()) {
            throw new IllegalArgumentException("computeOwn needs a user");
        }
        return compute(entries, query, true);
    }

    private static Stats compute(List<JournalEntry> entries, StatsQuery query, boolean own) {
        History history = History.of(entries, query.fileJobsOwner());
        long to = query.toMillis();
        Predicate<History.Job> chosen = query.user().<Predicate<History.Job>>map(u -> j -> j.owner.equals(u))
                .orElse(j -> true);
        OptionalLong first = own ? firstMillis(history, chosen) : history.firstMillis;
        // A journal whose first time is after the end (a clock set back) has an empty period, not a negative one.
        long from = Math.min(to, query.fromMillis().orElse(first.orElse(to)));
        Period period = new Period(from, to, query.fromMillis().isPresent());
        List<Integer> gpus = own ? gpus(history, chosen) : gpus(history, j -> true);
        Figures total = figures(history, period, gpus, chosen, query.tolerance());
        List<Stats.UserFigures> users = new ArrayList<>();
        TreeSet<String> owners = new TreeSet<>();
        history.jobs.stream().filter(chosen).forEach(j -> owners.add(j.owner));
        for (String owner : owners) {
            Figures f = figures(history, period, gpus, j -> j.owner.equals(owner), query.tolerance());
            if (f.jobs() > 0 || f.gpuMillis() > 0 || f.waits().count() > 0) {
                users.add(new Stats.UserFigures(owner, f));
            }
        }
        return new Stats(query, from, total, users, gpus, bars(history, period, chosen), notes(history, period, chosen));
    }

    /** The period, and whether its start was asked for (then ended jobs must say when they ended). */
    private record Period(long from, long to, boolean bounded) {
        long length() {
            return to - from;
        }

        boolean contains(long t) {
            return t >= from && t <= to;
        }
    }

    private static List<Integer> gpus(History history, Predicate<History.Job> chosen) {
        TreeSet<Integer> gpus = new TreeSet<>();
        history.jobs.stream().filter(chosen).forEach(j -> j.runs.forEach(r -> gpus.addAll(r.gpus)));
        return List.copyOf(gpus);
    }

    /** The earliest time the chosen jobs' lines carry: queued, started, ended. */
    private static OptionalLong firstMillis(History history, Predicate<History.Job> chosen) {
        long first = Long.MAX_VALUE;
        for (History.Job j : history.jobs) {
            if (!chosen.test(j)) {
                continue;
            }
            first = Math.min(first, j.queuedMillis.orElse(Long.MAX_VALUE));
            first = Math.min(first, j.endedMillis.orElse(Long.MAX_VALUE));
            for (History.Run r : j.runs) {
                first = Math.min(first, r.startMillis.orElse(Long.MAX_VALUE));
                first = Math.min(first, r.endMillis.orElse(Long.MAX_VALUE));
            }
        }
        return first == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(first);
    }

    private static Figures figures(History history, Period period, List<Integer> gpus, Predicate<History.Job> chosen,
                                   double tolerance) {
        Map<String, Integer> byStatus = new LinkedHashMap<>();
        Figures.STATUSES.forEach(s -> byStatus.put(s, 0));
        long gpuMillis = 0;
        List<Long> waits = new ArrayList<>();
        Map<Integer, List<Span>> held = new TreeMap<>();
        gpus.forEach(g -> held.put(g, new ArrayList<>()));
        List<Double> ratios = new ArrayList<>();
        int[] verdicts = new int[3];
        for (History.Job job : history.jobs) {
            if (!chosen.test(job)) {
                continue;
            }
            if (counted(job, period)) {
                byStatus.merge(job.status, 1, Integer::sum);
                judge(job, tolerance, verdicts, ratios);
            }
            for (History.Run run : job.runs) {
                Optional<Span> span = span(run, period);
                if (span.isPresent()) {
                    gpuMillis += span.get().length() * run.gpus.size();
                    run.gpus.forEach(g -> held.get(g).add(span.get()));
                }
            }
            wait(job, period).ifPresent(waits::add);
        }
        Map<Integer, Long> busy = new TreeMap<>();
        held.forEach((gpu, spans) -> busy.put(gpu, union(spans)));
        ratios.sort(Comparator.naturalOrder());
        OptionalDouble median = ratios.isEmpty() ? OptionalDouble.empty()
                : OptionalDouble.of(ratios.get((ratios.size() + 1) / 2 - 1));
        return new Figures(byStatus, gpuMillis, Waits.of(waits.stream().mapToLong(Long::longValue).toArray()),
                new Utilisation(busy, period.length()),
                new Declarations(verdicts[0] + verdicts[1] + verdicts[2], verdicts[0], verdicts[1], verdicts[2], median));
    }

    /** Whether a job is counted in the period: it ended in it, or has not ended; any job when unbounded. */
    private static boolean counted(History.Job job, Period period) {
        if (!job.ended() || !period.bounded()) {
            return true;
        }
        return job.endedMillis.isPresent() && period.contains(job.endedMillis.getAsLong());
    }

    /** Adds an ok job's verdict (within, under-declared, over-declared) and its peak ÷ declaration. */
    private static void judge(History.Job job, double tolerance, int[] verdicts, List<Double> ratios) {
        OptionalLong declared = job.finalDeclaredMib();
        if (!job.status.equals("ok") || job.peakMib.isEmpty() || declared.isEmpty()) {
            return;
        }
        long peak = job.peakMib.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        switch (Verdict.judge(declared.getAsLong(), peak, tolerance)) {
            case WITHIN -> verdicts[0]++;
            case OVER -> verdicts[1]++;
            default -> verdicts[2]++;
        }
        ratios.add((double) peak / declared.getAsLong());
    }

    /** A stretch of time, in milliseconds since the epoch, {@code start <= end}. */
    private record Span(long start, long end) {
        long length() {
            return end - start;
        }
    }

    /**
     * A run's start and end clipped to the period; empty when it has no time at one end or lies outside.
     * A run without an end runs until the period's end.
     */
    private static Optional<Span> span(History.Run run, Period period) {
        if (run.startMillis.isEmpty() || (!run.open() && run.endMillis.isEmpty())) {
            return Optional.empty();
        }
        long start = run.startMillis.getAsLong();
        long end = run.open() ? Math.max(start, period.to()) : Math.max(start, run.endMillis.getAsLong());
        if (start > period.to() || end < period.from()) {
            return Optional.empty();
        }
        return Optional.of(new Span(Math.max(start, period.from()), Math.min(end, period.to())));
    }

    /** A job's wait, when it first started in the period and both ends have a time. */
    private static OptionalLong wait(History.Job job, Period period) {
        if (job.runs.isEmpty() || job.queuedMillis.isEmpty() || job.runs.get(0).startMillis.isEmpty()) {
            return OptionalLong.empty();
        }
        long start = job.runs.get(0).startMillis.getAsLong();
        return period.contains(start) ? OptionalLong.of(Math.max(0, start - job.queuedMillis.getAsLong()))
                : OptionalLong.empty();
    }

    /** The length of the union of spans, in milliseconds: jobs sharing a GPU at once hold it once. */
    private static long union(List<Span> spans) {
        spans.sort(Comparator.comparingLong(Span::start));
        long total = 0;
        long curStart = 0;
        long curEnd = Long.MIN_VALUE;
        for (Span s : spans) {
            if (s.start() > curEnd) {
                total += curEnd == Long.MIN_VALUE ? 0 : curEnd - curStart;
                curStart = s.start();
                curEnd = s.end();
            } else {
                curEnd = Math.max(curEnd, s.end());
            }
        }
        return total + (curEnd == Long.MIN_VALUE ? 0 : curEnd - curStart);
    }

    private static List<Bar> bars(History history, Period period, Predicate<History.Job> chosen) {
        List<Bar> bars = new ArrayList<>();
        for (History.Job job : history.jobs) {
            if (!chosen.test(job)) {
                continue;
            }
            for (History.Run run : job.runs) {
                Optional<Span> span = span(run, period);
                if (span.isEmpty()) {
                    continue;
                }
                for (int gpu : run.gpus) {
                    Long peak = run.peakMib.get(gpu);
                    Bar.Height height = peak != null ? Bar.Height.PEAK
                            : run.declaredMib.isPresent() ? Bar.Height.DECLARED : Bar.Height.NONE;
                    long mib = peak != null ? peak : run.declaredMib.orElse(0);
                    bars.add(new Bar(job.no, job.owner, gpu, span.get().start(), span.get().end(), mib, height,
                            run.ending.orElse(History.RUNNING)));
                }
            }
        }
        bars.sort(Comparator.comparingLong(Bar::startMillis).thenComparingInt(Bar::no).thenComparingInt(Bar::gpu));
        return bars;
    }

    private static Stats.Notes notes(History history, Period period, Predicate<History.Job> chosen) {
        int untimedRuns = 0;
        int untimedWaits = 0;
        int untimedEnds = 0;
        int openRuns = 0;
        int fileJobs = 0;
        for (History.Job job : history.jobs) {
            if (!chosen.test(job)) {
                continue;
            }
            // A job the period does not count (it ended before) has nothing in it to leave out.
            boolean counted = counted(job, period);
            for (History.Run run : job.runs) {
                if (run.startMillis.isEmpty() || (!run.open() && run.endMillis.isEmpty())) {
                    untimedRuns += counted ? 1 : 0;
                } else if (run.open()) {
                    openRuns++;
                }
            }
            if (counted && !job.runs.isEmpty() && (job.queuedMillis.isEmpty() || job.runs.get(0).startMillis.isEmpty())) {
                untimedWaits++;
            }
            if (period.bounded() && job.ended() && job.endedMillis.isEmpty()) {
                untimedEnds++;
            }
            if (!job.submitted && counted) {
                fileJobs++;
            }
        }
        return new Stats.Notes(untimedRuns, untimedWaits, untimedEnds, openRuns, fileJobs);
    }
}
