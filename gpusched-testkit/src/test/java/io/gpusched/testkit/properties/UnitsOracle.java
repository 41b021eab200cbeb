package io.gpusched.testkit.properties;

import io.gpusched.jobs.Units;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What docs/jobs-file.md says a {@code vram}, {@code timeout}, {@code gpus} or {@code retries} value means,
 * computed with unbounded arithmetic so that no overflow or truncation can agree with the parser by
 * accident.
 */
final class UnitsOracle {
    private UnitsOracle() {
    }

    /** Splits an ASCII decimal number (digits with at most one dot, at least one digit) from its letter suffix. */
    private static Optional<String[]> split(String text) {
        int i = 0;
        int digits = 0;
        int dots = 0;
        while (i < text.length() && ((text.charAt(i) >= '0' && text.charAt(i) <= '9') || text.charAt(i) == '.')) {
            if (text.charAt(i) == '.') {
                dots++;
            } else {
                digits++;
            }
            i++;
        }
        String suffix = text.substring(i);
        boolean letters = suffix.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
        if (digits == 0 || dots > 1 || !letters) {
            return Optional.empty();
        }
        return Optional.of(new String[] {text.substring(0, i), suffix.toLowerCase(Locale.ROOT)});
    }

    private static BigDecimal number(String digits) {
        String n = digits.startsWith(".") ? "0" + digits : digits;
        return new BigDecimal(n.endsWith(".") ? n + "0" : n);
    }

    /** MiB, rounded up, when in [1, MAX_MIB]; suffixes M/MB/MiB and G/GB/GiB, any case. */
    static OptionalLong mib(String text) {
        Optional<String[]> parts = split(text);
        if (parts.isEmpty()) {
            return OptionalLong.empty();
        }
        long factor = switch (parts.get()[1]) {
            case "", "m", "mb", "mib" -> 1;
            case "g", "gb", "gib" -> 1024;
            default -> 0;
        };
        if (factor == 0) {
            return OptionalLong.empty();
        }
        BigDecimal exact = number(parts.get()[0]).multiply(BigDecimal.valueOf(factor)).setScale(0, RoundingMode.CEILING);
        if (exact.signum() <= 0 || exact.compareTo(BigDecimal.valueOf(Units.MAX_MIB)) > 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(exact.longValueExact());
    }

    /** A duration rounded up to the nanosecond, when positive and at most 3650 days; s/m/h/d, any case. */
    static Optional<Duration> duration(String text) {
        Optional<String[]> parts = split(text);
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        long unit = switch (parts.get()[1]) {
            case "", "s" -> 1;
            case "m" -> 60;
            case "h" -> 3600;
            case "d" -> 86400;
            default -> 0;
        };
        if (unit == 0) {
            return Optional.empty();
        }
        BigDecimal seconds = number(parts.get()[0]).multiply(BigDecimal.valueOf(unit));
        if (seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(Units.MAX_DURATION.getSeconds())) > 0) {
            return Optional.empty();
        }
        BigInteger nanos = seconds.movePointRight(9).setScale(0, RoundingMode.CEILING).toBigIntegerExact();
        return Optional.of(Duration.ofNanos(nanos.longValueExact()));
    }

    /** The exact integer a run of ASCII digits denotes, or empty for anything else. */
    static Optional<BigInteger> integer(String text) {
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        return Optional.of(new BigInteger(text));
    }
}
