package io.gpusched.policy;

import java.time.Duration;

/** How a waiting time reads on the board: {@code 45s}, {@code 16m}, {@code 3h05m}, {@code 2d04h}. */
final class Waits {
    private Waits() {
    }

    static String format(Duration d) {
        long s = Math.max(0, d.getSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m";
        }
        if (s < 86_400) {
            return s / 3600 + "h" + twoDigits(s % 3600 / 60) + "m";
        }
        return s / 86_400 + "d" + twoDigits(s % 86_400 / 3600) + "h";
    }

    /** {@code %02d} of a number from 0 to 99, without a Formatter: a plan writes one per reservation. */
    private static String twoDigits(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
    }
}
