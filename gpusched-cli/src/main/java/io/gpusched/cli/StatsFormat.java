package io.gpusched.cli;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How {@code gpusched stats} prints durations, shares and times: short, fixed-width-friendly, locale-free. */
final class StatsFormat {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private StatsFormat() {
    }

    /**
     * A duration as a person reads it: {@code 0.4s} and {@code 12s} under a minute, {@code 5m03s} under an
     * hour, {@code 2h05m} under a day, then {@code 3d04h}; each cut down, never rounded up.
     */
    static String duration(long millis) {
        long s = Math.max(0, millis) / 1000;
        if (millis < 10_000 && millis % 1000 != 0) {
            return String.format(Locale.ROOT, "%.1fs", Math.floor(Math.max(0, millis) / 100.0) / 10);
        }
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }

    /** A share in [0, 1] as a percentage with one decimal: {@code 62.5%}. */
    static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    /** A number with two decimals: GPU-hours, ratios. */
    static String twoDecimals(double x) {
        return String.format(Locale.ROOT, "%.2f", x);
    }

    /** A time in the zone, to the second: {@code 2026-03-02 09:00:00}. */
    static String time(long millis, ZoneId zone) {
        return TIME.format(Instant.ofEpochMilli(millis).atZone(zone));
    }
}
