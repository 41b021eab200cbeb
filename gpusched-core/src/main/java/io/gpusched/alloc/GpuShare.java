package io.gpusched.alloc;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A share of one GPU's memory ({@code gpus=0.5}): the job needs that fraction of the total memory of
 * whichever GPU it gets, so half of a 24000 MiB card is 12000 MiB and half of an 80000 MiB card is
 * 40000 MiB. Exact decimal arithmetic: {@code 0.1} is one tenth, not the nearest double.
 *
 * @param fraction strictly between 0 and 1, without trailing zeros ({@code 0.5}, never {@code 0.50})
 */
public record GpuShare(BigDecimal fraction) {
    /** A plain decimal: digits with one point, at least one digit after or before it. */
    private static final Pattern DECIMAL = Pattern.compile("[0-9]*\\.[0-9]+|[0-9]+\\.[0-9]*");
    /** Digits past this many are noise: a millionth of an 80 GiB card is under 1 MiB. */
    public static final int MAX_DIGITS = 9;

    /**
     * Validates and normalises the fraction (trailing zeros dropped), so equal shares are equal records.
     *
     * @param fraction see {@link #fraction()}
     */
    public GpuShare {
        Objects.requireNonNull(fraction, "fraction");
        if (fraction.signum() <= 0 || fraction.compareTo(BigDecimal.ONE) >= 0) {
            throw new IllegalArgumentException("a GPU share must be between 0 and 1, got " + fraction.toPlainString());
        }
        fraction = fraction.stripTrailingZeros();
        if (fraction.scale() > MAX_DIGITS) {
            throw new IllegalArgumentException("a GPU share has at most " + MAX_DIGITS + " decimal digits, got "
                    + fraction.toPlainString());
        }
    }

    /**
     * @param text a decimal such as {@code 0.5} or {@code .25}
     * @return the share, or empty when the text is not a decimal strictly between 0 and 1 with at most
     *     {@link #MAX_DIGITS} digits after the point
     */
    public static Optional<GpuShare> parse(String text) {
        if (text.length() > 64 || !DECIMAL.matcher(text).matches()) {
            return Optional.empty();
        }
        BigDecimal v = new BigDecimal(text.endsWith(".") ? text + "0" : text).stripTrailingZeros();
        if (v.signum() <= 0 || v.compareTo(BigDecimal.ONE) >= 0 || v.scale() > MAX_DIGITS) {
            return Optional.empty();
        }
        return Optional.of(new GpuShare(v));
    }

    /**
     * @param text a value of {@code gpus=}
     * @return whether it is written as a decimal (has a point), whatever its value: such a value is a
     *     share or an error, never a whole GPU count
     */
    public static boolean looksDecimal(String text) {
        return text.length() <= 64 && DECIMAL.matcher(text).matches();
    }

    /**
     * The memory this share reserves on one GPU: {@code ⌊fraction × totalMib⌋}, at least 1 MiB. Rounding
     * down keeps shares that add up to at most 1 within the card (two halves of an odd total fit).
     *
     * @param totalMib the GPU's total memory in MiB
     * @return the reserved MiB on that GPU
     */
    public long mibOf(long totalMib) {
        long mib = fraction.multiply(BigDecimal.valueOf(totalMib)).setScale(0, RoundingMode.FLOOR).longValueExact();
        return Math.max(1, mib);
    }

    /** @return the fraction as written in a jobs file, e.g. {@code 0.5} */
    @Override
    public String toString() {
        return fraction.toPlainString();
    }
}
