package io.gpusched.model;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a job stands for whoever follows its output ({@code gpusched logs}, {@code attach}): waiting,
 * running or ended. Coarser than {@link JobState}: a job waiting to run again is {@link #PENDING}, and a
 * run whose outcome is still being settled (its output read as its owner) is {@link #RUNNING} until the
 * outcome is journaled. On the wire ({@code logs}' answer) by its lower-case name, and {@code unknown} for
 * a number no job has.
 */
public enum JobStage {
    /** Queued, held, or waiting to run again. */
    PENDING,
    /** Running, or ended with its outcome not yet journaled: its output may still grow. */
    RUNNING,
    /** Ended: its output is whole. */
    ENDED;

    /** The wire's word for a number no job has. */
    public static final String UNKNOWN = "unknown";

    /** @return the wire's word for it: {@code pending}, {@code running} or {@code ended} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param stage where a job stands, or empty for a number no job has
     * @return the wire's word: a {@link #wireName()}, or {@link #UNKNOWN}
     */
    public static String wireName(Optional<JobStage> stage) {
        return stage.map(JobStage::wireName).orElse(UNKNOWN);
    }

    /**
     * @param word the wire's word
     * @return the stage; empty for {@link #UNKNOWN}
     * @throws IllegalArgumentException for any other word, naming those allowed
     */
    public static Optional<JobStage> fromWire(String word) {
        for (JobStage s : values()) {
            if (s.wireName().equals(word)) {
                return Optional.of(s);
            }
        }
        if (UNKNOWN.equals(word)) {
            return Optional.empty();
        }
        throw new IllegalArgumentException("a job's stage is pending, running, ended or unknown, not '" + word + "'");
    }
}
