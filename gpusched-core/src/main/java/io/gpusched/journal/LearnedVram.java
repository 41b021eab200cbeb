package io.gpusched.journal;

import io.gpusched.jobs.Units;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A declaration learned from an earlier run ({@code vram=auto}): that run's peak plus the spike buffer.
 *
 * @param mib the declaration, MiB per GPU: the peak plus {@code peak × buffer} rounded up, at most
 *     {@link Units#MAX_MIB}
 * @param peakMib the peak it was learned from, MiB
 * @param fromNo the display number of the job that peaked
 * @param rule the requirement rule whose jobs it was learned from; empty when learned from the same command
 * @param buffer the spike buffer added, a fraction (0.10 is 10%)
 */
public record LearnedVram(long mib, long peakMib, int fromNo, Optional<String> rule, double buffer) {

    /**
     * @param mib see {@link #mib()}
     * @param peakMib see {@link #peakMib()}
     * @param fromNo see {@link #fromNo()}
     * @param rule see {@link #rule()}
     * @param buffer see {@link #buffer()}
     */
    public LearnedVram {
        Objects.requireNonNull(rule, "rule");
        if (mib < 1 || peakMib < 1 || buffer < 0) {
            throw new IllegalArgumentException("a learned declaration needs positive MiB and a buffer of at least 0");
        }
    }

    /**
     * Learns a job's declaration: from the latest peak of the same command, else of the same rule.
     * Pure.
     *
     * @param command the job's command
     * @param rule the requirement rule it matched, if any
     * @param history the journal's peaks
     * @param buffer the spike buffer, a fraction at least 0
     * @return the declaration; empty when neither has run to an end before (the job then asks for its
     *     rule's figure, or runs undeclared, and teaches the next one)
     */
    public static Optional<LearnedVram> learn(String command, Optional<String> rule, PeakHistory history, double buffer) {
        return learn(System.getProperty("user.name", "?"), command, rule, history, buffer);
    }

    /**
     * Learns a job's declaration from its owner's own history only: another user's job of the same
     * command or rule teaches it nothing. Pure.
     *
     * @param owner whom the job runs for
     * @param command the job's command
     * @param rule the requirement rule it matched, if any
     * @param history the journal's peaks
     * @param buffer the spike buffer, a fraction at least 0
     * @return the declaration; empty when neither has run to an end before for that owner
     */
    public static Optional<LearnedVram> learn(String owner, String command, Optional<String> rule, PeakHistory history,
                                              double buffer) {
        Optional<PeakHistory.Peak> own = history.ofCommand(owner, command);
        if (own.isPresent()) {
            return Optional.of(of(own.get(), Optional.empty(), buffer));
        }
        return rule.flatMap(r -> history.ofRule(owner, r)).map(p -> of(p, rule, buffer));
    }

    private static LearnedVram of(PeakHistory.Peak p, Optional<String> rule, double buffer) {
        // The buffer rounded up to whole MiB, less a hair: 1500 × 0.1 is 150.00000000000003 in binary.
        long mib = Math.min(Units.MAX_MIB, p.mib() + (long) Math.ceil(p.mib() * buffer - 1e-6));
        return new LearnedVram(Math.max(1, mib), p.mib(), p.no(), rule, buffer);
    }

    /**
     * @return how the log, board and verdict line say it, e.g. {@code learned: job 3 peaked at 1500 MiB,
     *     +10%} or {@code learned from rule "qwen2.5-7b": job 3 peaked at 15900 MiB, +10%}
     */
    public String describe() {
        return "learned" + rule.map(r -> " from rule \"" + r + "\"").orElse("") + ": job " + fromNo + " peaked at "
                + peakMib + " MiB, +" + String.format(Locale.ROOT, "%.0f", buffer * 100) + "%";
    }
}
