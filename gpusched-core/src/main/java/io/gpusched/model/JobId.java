package io.gpusched.model;

/**
 * A job's identity in the journal, typed by where the job came from: a line of the jobs file, keyed by
 * its command's hash and occurrence ({@code e855ec027199#0}), or a submission through the API or
 * {@code srun}, keyed by its display number ({@code s7}). {@link #key()} is the journal's spelling.
 */
public sealed interface JobId {
    /** @return the key the journal and the queue spell this job by */
    String key();

    /**
     * A job of the jobs file (or a fixed job list).
     *
     * @param key its key, as the source gave it
     */
    record FileLine(String key) implements JobId {
        /** @param key see {@link #key()}; never null */
        public FileLine {
            java.util.Objects.requireNonNull(key);
        }
    }

    /**
     * A job submitted through the API or {@code srun}: its key is {@code s} and its display number.
     *
     * @param no its display number, at least 1
     */
    record Submission(int no) implements JobId {
        /** @param no see {@link #no()} */
        public Submission {
            if (no < 1) {
                throw new IllegalArgumentException("a submission's number is at least 1, got " + no);
            }
        }

        @Override
        public String key() {
            return "s" + no;
        }
    }

    /**
     * @param key a journal key
     * @return a {@link Submission} for {@code s} and a number, a {@link FileLine} for any other key
     */
    static JobId of(String key) {
        if (key.length() > 1 && key.length() <= 11 && key.charAt(0) == 's') {
            long no = 0;
            for (int i = 1; i < key.length(); i++) {
                char c = key.charAt(i);
                if (c < '0' || c > '9') {
                    return new FileLine(key);
                }
                no = no * 10 + (c - '0');
            }
            if (no >= 1 && no <= Integer.MAX_VALUE && key.charAt(1) != '0') {
                return new Submission((int) no);
            }
        }
        return new FileLine(key);
    }
}
