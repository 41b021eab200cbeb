package io.gpusched.stats;

import java.util.List;
import java.util.Objects;

/**
 * Everything {@code gpusched stats} reports about a journal over a period.
 *
 * @param query what was asked
 * @param fromMillis the period's start, in milliseconds since the epoch (the query's, or the journal's
 *     earliest time; its end when the journal records no time)
 * @param total the figures of every counted job (the query's user's only, when it names one)
 * @param users the same per owner, by name
 * @param gpus every GPU the journal's runs used, by index: the journal does not list the machine's GPUs,
 *     so one that never ran a job is not among them
 * @param bars the counted runs within the period, one per run and GPU, by start
 * @param notes what the journal could not tell
 */
public record Stats(StatsQuery query, long fromMillis, Figures total, List<UserFigures> users, List<Integer> gpus,
                    List<Bar> bars, Notes notes) {
    /**
     * Copies the lists.
     *
     * @param query see {@link #query()}
     * @param fromMillis see {@link #fromMillis()}
     * @param total see {@link #total()}
     * @param users see {@link #users()}
     * @param gpus see {@link #gpus()}
     * @param bars see {@link #bars()}
     * @param notes see {@link #notes()}
     */
    public Stats {
        Objects.requireNonNull(query);
        Objects.requireNonNull(total);
        Objects.requireNonNull(notes);
        users = List.copyOf(users);
        gpus = List.copyOf(gpus);
        bars = List.copyOf(bars);
    }

    /** @return the period's end, in milliseconds since the epoch */
    public long toMillis() {
        return query.toMillis();
    }

    /**
     * One owner's figures.
     *
     * @param user the owner
     * @param figures their jobs' figures
     */
    public record UserFigures(String user, Figures figures) {
        /**
         * Checks for nulls.
         *
         * @param user see {@link #user()}
         * @param figures see {@link #figures()}
         */
        public UserFigures {
            Objects.requireNonNull(user);
            Objects.requireNonNull(figures);
        }
    }

    /**
     * What the journal could not tell, of the counted jobs: lines written before times were recorded
     * ({@code at_ms}), by the original tool, or folded by a compaction, say no time.
     *
     * @param untimedRuns runs of counted jobs without a start or end time: left out of GPU-hours, utilisation
     *     and the chart
     * @param untimedWaits counted jobs that started but whose wait has no time at one end: left out of the waits
     * @param untimedEnds ended jobs whose end has no time: counted only when no {@code --since} is given
     * @param openRuns runs the journal gives no end (still running, or their scheduler died and has not
     *     restarted): counted until the period's end
     * @param fileJobs jobs-file lines among the counted jobs: owned by {@link StatsQuery#fileJobsOwner()}
     */
    public record Notes(int untimedRuns, int untimedWaits, int untimedEnds, int openRuns, int fileJobs) {
    }
}
