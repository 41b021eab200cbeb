package io.gpusched.jobs;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing and printing of the two units a jobs file uses: GPU memory in MiB and durations. Pure and
 * locale-independent. Parsing returns empty for anything it does not accept, so callers can word the
 * error with the line and token they know.
 */
public final class Units {
    /** Largest accepted VRAM declaration, in MiB (2^31 − 1 MiB, about 2 PiB). */
    public static final long MAX_MIB = Integer.MAX_VALUE;
    /** Longest accepted timeout: 10 years, far beyond any real job, small enough never to overflow. */
    public static final Duration MAX_DURATION = Duration.ofDays(3650);

    private static final Pattern NUMBER_WITH_SUFFIX =
            Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)([a-zA-Z]*)");
    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

    private Units() {
    }

    /**
     * Parses a VRAM amount: a plain number is MiB; suffixes {@code M, MB, MiB} mean MiB and
     * {@code G, GB, GiB} mean GiB (1024 MiB), in any case. Decimals are allowed and rounded up to a
     * whole MiB, so {@code 1.5G} is 1536 MiB and {@code 0.2} is 1 MiB.
     *
     * @param text the value, without surrounding whitespace
     * @return MiB in [1, {@link #MAX_MIB}], or empty when not a positive amount in range
     */
    public static OptionalLong parseMib(String text) {
        Matcher m = NUMBER_WITH_SUFFIX.matcher(text);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        BigDecimal factor;
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "", "m", "mb", "mib" -> factor = BigDecimal.ONE;
            case "g", "gb", "gib" -> factor = BigDecimal.valueOf(1024);
            default -> {
                return OptionalLong.empty();
            }
        }
        BigDecimal mib = decimal(m.group(1)).multiply(factor).setScale(0, RoundingMode.CEILING);
        if (mib.signum() <= 0 || mib.compareTo(BigDecimal.valueOf(MAX_MIB)) > 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(mib.longValueExact());
    }

    /**
     * Parses a duration: a plain number is seconds; suffixes {@code s, m, h, d} (any case) mean
     * seconds, minutes, hours and days. Decimals are allowed ({@code 1.5h} is 90 minutes) and kept to
     * the nanosecond, rounding up so a positive input never becomes zero.
     *
     * @param text the value, without surrounding whitespace
     * @return a positive duration up to {@link #MAX_DURATION}, or empty when not one
     */
    public static Optional<Duration> parseDuration(String text) {
        Matcher m = NUMBER_WITH_SUFFIX.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        long unitSeconds;
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "", "s" -> unitSeconds = 1;
            case "m" -> unitSeconds = 60;
            case "h" -> unitSeconds = 3600;
            case "d" -> unitSeconds = 86400;
            default -> {
                return Optional.empty();
            }
        }
        BigDecimal seconds = decimal(m.group(1)).multiply(BigDecimal.valueOf(unitSeconds));
        if (seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(MAX_DURATION.getSeconds())) > 0) {
            return Optional.empty();
        }
        BigDecimal nanos = seconds.multiply(NANOS_PER_SECOND).setScale(0, RoundingMode.CEILING);
        return Optional.of(Duration.ofNanos(nanos.longValueExact()));
    }

    /**
     * Whether a text is written as a duration, whatever its size: a number with no suffix or one of
     * {@code s, m, h, d}. With {@link #parseDuration} empty, it tells a value out of range
     * ({@code 3651d}, {@code 0}), whose error should name the range, from one that is no duration at all
     * ({@code soon}), whose error should say what a duration is.
     *
     * @param text the value, without surrounding whitespace
     * @return true for {@code 0}, {@code 3651d} or {@code 1.5h}; false for {@code soon}, {@code 2w} or {@code -1}
     */
    public static boolean isDurationForm(String text) {
        Matcher m = NUMBER_WITH_SUFFIX.matcher(text);
        return m.matches() && m.group(2).matches("(?i)[smhd]?");
    }

    /**
     * Whether a text is written as a memory size, whatever its size: a number with no suffix or one of
     * the suffixes {@link #parseMib} reads. As {@link #isDurationForm}, it tells {@code 0} or
     * {@code 9999999999G} (out of range) from {@code lots} (no size).
     *
     * @param text the value, without surrounding whitespace
     * @return true for {@code 0} or {@code 9999999999G}; false for {@code lots}, {@code 2T} or {@code -1}
     */
    public static boolean isMibForm(String text) {
        Matcher m = NUMBER_WITH_SUFFIX.matcher(text);
        return m.matches() && m.group(2).matches("(?i)|m|mb|mib|g|gb|gib");
    }

    /**
     * Prints a duration so that {@link #parseDuration} reads it back exactly: whole seconds as
     * {@code 90s}, fractions as {@code 0.25s}.
     *
     * @param d a positive duration
     * @return the text, always with the {@code s} suffix
     */
    public static String formatDuration(Duration d) {
        BigDecimal seconds = BigDecimal.valueOf(d.getSeconds())
                .add(BigDecimal.valueOf(d.getNano()).divide(NANOS_PER_SECOND));
        return seconds.stripTrailingZeros().toPlainString() + "s";
    }

    /**
     * Reads a regex-checked digit string exactly enough for ceiling rounding, in bounded time: the
     * integer part beyond 30 significant digits is out of every range anyway, and fraction digits
     * beyond the 30th only matter as "something more", which a trailing 1 preserves.
     */
    private static BigDecimal decimal(String digits) {
        int dot = digits.indexOf('.');
        int intEnd = dot < 0 ? digits.length() : dot;
        int firstNonZero = 0;
        while (firstNonZero < intEnd && digits.charAt(firstNonZero) == '0') {
            firstNonZero++;
        }
        String intPart = digits.substring(firstNonZero, intEnd);
        String fraction = dot < 0 ? "" : digits.substring(dot + 1);
        if (intPart.length() > 30) {
            return BigDecimal.TEN.pow(31);
        }
        if (fraction.length() > 30) {
            boolean more = fraction.substring(30).chars().anyMatch(c -> c != '0');
            fraction = fraction.substring(0, 30) + (more ? "1" : "");
        }
        return new BigDecimal((intPart.isEmpty() ? "0" : intPart) + "." + (fraction.isEmpty() ? "0" : fraction));
    }
}
