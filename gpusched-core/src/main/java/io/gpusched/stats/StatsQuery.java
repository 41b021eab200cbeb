package io.gpusched.stats;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@link JournalStats#compute} is asked: the period, whose jobs, and how declarations are judged.
 *
 * @param fromMillis the period's start, in milliseconds since the epoch ({@code --since}: its end less the
 *     duration); empty: from the earliest time the journal records
 * @param toMillis the period's end, in milliseconds since the epoch: now, for the CLI; runs without an
 *     end in the journal are counted until it
 * @param user only this owner's jobs ({@code --user}); empty: everyone's
 * @param tolerance the band a peak may stray from its declaration and still be {@code within}, as the
 *     scheduler's {@code --tolerance}: a share in [0, 1)
 * @param fileJobsOwner whom jobs-file lines belong to: the journal names owners only for submissions, and
 *     a file's lines run as the scheduler's user
 */
public record StatsQuery(OptionalLong fromMillis, long toMillis, Optional<String> user, double tolerance,
                         String fileJobsOwner) {
    /**
     * Checks the values.
     *
     * @param fromMillis see {@link #fromMillis()}
     * @param toMillis see {@link #toMillis()}
     * @param user see {@link #user()}
     * @param tolerance see {@link #tolerance()}
     * @param fileJobsOwner see {@link #fileJobsOwner()}
     */
    public StatsQuery {
        Objects.requireNonNull(fromMillis);
        Objects.requireNonNull(user);
        Objects.requireNonNull(fileJobsOwner);
        if (!(tolerance >= 0 && tolerance < 1)) {
            throw new IllegalArgumentException("tolerance must be in [0, 1), got " + tolerance);
        }
    }

    /**
     * @param user an owner
     * @return the same query for that owner's jobs only
     */
    public StatsQuery forUser(String user) {
        return new StatsQuery(fromMillis, toMillis, Optional.of(user), tolerance, fileJobsOwner);
    }
}
