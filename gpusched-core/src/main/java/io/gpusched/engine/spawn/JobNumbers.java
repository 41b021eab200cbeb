package io.gpusched.engine.spawn;

/** How a job's number reads in the names of its files: at least three digits, as {@code %03d} writes it. */
final class JobNumbers {
    private JobNumbers() {
    }

    /**
     * Appends {@code no} as {@code String.format("%03d", no)} would (without its Formatter, which costs
     * more than the rest of a launch's names together).
     *
     * @param to where it goes
     * @param no the job's number; a negative one keeps its sign before the padding, as %03d does
     */
    static StringBuilder padded(StringBuilder to, int no) {
        if (no < 0) {
            return to.append(String.format("%03d", no));
        }
        if (no < 10) {
            to.append("00");
        } else if (no < 100) {
            to.append('0');
        }
        return to.append(no);
    }
}
