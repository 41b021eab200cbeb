package io.gpusched.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A request line a client sends ({@code PROTOCOL.md}, "Requests"): each carries {@code "v"} and its
 * {@link #op()}, then its fields in the order listed here.
 */
public sealed interface Request {
    /** @return the op's wire name, e.g. {@code "submit"} */
    String op();

    /** {@code hello}: who the service knows the caller as. */
    record Hello() implements Request {
        @Override
        public String op() {
            return "hello";
        }
    }

    /**
     * {@code preview}: what a {@code submit} of this job would do now, queuing nothing
     * ({@code gpusched submit --dry-run}).
     *
     * @param line the job as a jobs-file line
     * @param cwd the absolute directory it would run in
     */
    record Preview(String line, String cwd) implements Request {
        /**
         * Checks the fields.
         *
         * @param line see {@link #line()}
         * @param cwd see {@link #cwd()}
         */
        public Preview {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(cwd, "cwd");
        }

        @Override
        public String op() {
            return "preview";
        }
    }

    /**
     * {@code submit}: queue a job.
     *
     * @param line the job as a jobs-file line
     * @param cwd the absolute directory it runs in
     * @param env the whole environment it runs with; empty for the daemon's default
     * @param output the file its output is appended to; empty for the default
     * @param requestId the client's name for the submission, for a safe resend
     * @param umask the creation mask it runs with, 0 to 511; empty for the daemon's default
     */
    record Submit(String line, String cwd, Optional<Map<String, String>> env, Optional<String> output,
                  Optional<String> requestId, OptionalInt umask) implements Request {
        /**
         * Copies the environment, keeping its order.
         *
         * @param line see {@link #line()}
         * @param cwd see {@link #cwd()}
         * @param env see {@link #env()}
         * @param output see {@link #output()}
         * @param requestId see {@link #requestId()}
         * @param umask see {@link #umask()}
         */
        public Submit {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(cwd, "cwd");
            env = env.map(e -> Collections.unmodifiableMap(new LinkedHashMap<>(e)));
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(requestId, "requestId");
            Objects.requireNonNull(umask, "umask");
        }

        @Override
        public String op() {
            return "submit";
        }
    }

    /**
     * {@code queue}: the whole queue.
     *
     * @param stream whether to send it in as many lines as it needs ({@code "stream": true}), rather than
     *     the rows that fit in one line
     * @param text the queue as {@code gpusched queue} prints it, rendered by the daemon, instead of its
     *     rows ({@code "text": {...}}); empty for rows. A daemon that renders no text (an embedder's, or
     *     one older than the field) answers rows as if it were absent
     */
    record Queue(boolean stream, Optional<Text> text) implements Request {
        /**
         * Checks for null.
         *
         * @param stream see {@link #stream()}
         * @param text see {@link #text()}
         */
        public Queue {
            Objects.requireNonNull(text, "text");
        }

        /**
         * The rows of the queue, streamed or in one line.
         *
         * @param stream see {@link #stream()}
         */
        public Queue(boolean stream) {
            this(stream, Optional.empty());
        }

        @Override
        public String op() {
            return "queue";
        }
    }

    /**
     * How the asking client prints the queue ({@code gpusched queue}'s options and its terminal), for a
     * daemon that renders the text: the daemon's JIT is warm where a client's is cold, and its client
     * then only copies lines to its output. Every field is checked here against its bound, as every byte
     * a client sends is hostile; what a {@code format} means is checked by the renderer's own parser.
     *
     * @param table the table ({@code --format}, or a terminal) rather than the plain list a pipe gets
     * @param format the table's columns, as {@code gpusched queue --format} takes them, at most
     *     {@link #MAX_FORMAT_CHARS} characters; empty for the default table
     * @param width the terminal's columns, which the table's last column is cut to, 1 to
     *     {@link #MAX_WIDTH}; empty when output goes to no terminal
     * @param ascii plain ASCII only (a locale that is not UTF-8)
     * @param user only this user's rows, at most {@link #MAX_USER_CHARS} characters; empty for everyone's
     * @param all every finished job rather than the last ten
     * @param chunks the text in length-prefixed chunks ({@code "chunks": true}, {@code text_chunks}), which
     *     the daemon renders once, rather than after a head counting its bytes ({@code text_bytes}), which
     *     it renders twice; a daemon older than the field ignores it and answers {@code text_bytes}
     */
    record Text(boolean table, Optional<String> format, OptionalInt width, boolean ascii, Optional<String> user,
                boolean all, boolean chunks) {
        /** The longest {@code format} taken, in characters (UTF-16 units). */
        public static final int MAX_FORMAT_CHARS = 1000;
        /** The widest terminal taken, in columns. */
        public static final int MAX_WIDTH = 99_999;
        /** The longest {@code user} taken, in characters (UTF-16 units). */
        public static final int MAX_USER_CHARS = 256;

        /**
         * Checks each field against its bound.
         *
         * @param table see {@link #table()}
         * @param format see {@link #format()}
         * @param width see {@link #width()}
         * @param ascii see {@link #ascii()}
         * @param user see {@link #user()}
         * @param all see {@link #all()}
         * @param chunks see {@link #chunks()}
         * @throws IllegalArgumentException naming the field out of bounds and its bound
         */
        public Text {
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(width, "width");
            Objects.requireNonNull(user, "user");
            if (format.isPresent() && format.get().length() > MAX_FORMAT_CHARS) {
                throw new IllegalArgumentException("\"format\" is " + format.get().length() + " characters; at most "
                        + MAX_FORMAT_CHARS + " are taken");
            }
            if (format.isPresent() && !table) {
                throw new IllegalArgumentException("\"format\" is for \"layout\": \"table\" only");
            }
            if (width.isPresent() && (width.getAsInt() < 1 || width.getAsInt() > MAX_WIDTH)) {
                throw new IllegalArgumentException("\"width\" is 1 to " + MAX_WIDTH + " columns, got " + width.getAsInt());
            }
            if (user.isPresent() && (user.get().isEmpty() || user.get().length() > MAX_USER_CHARS)) {
                throw new IllegalArgumentException("\"user\" is 1 to " + MAX_USER_CHARS + " characters");
            }
        }

        /**
         * The text answered after a head counting its bytes ({@code text_bytes}), as every daemon that
         * prints text answers it.
         *
         * @param table see {@link #table()}
         * @param format see {@link #format()}
         * @param width see {@link #width()}
         * @param ascii see {@link #ascii()}
         * @param user see {@link #user()}
         * @param all see {@link #all()}
         * @throws IllegalArgumentException naming the field out of bounds and its bound
         */
        public Text(boolean table, Optional<String> format, OptionalInt width, boolean ascii, Optional<String> user,
                    boolean all) {
            this(table, format, width, ascii, user, all, false);
        }

        /**
         * @param chunks see {@link #chunks()}
         * @return these options, the text asked for in chunks or not
         */
        public Text withChunks(boolean chunks) {
            return new Text(table, format, width, ascii, user, all, chunks);
        }
    }

    /**
     * {@code job}: one job with its whole command.
     *
     * @param no its number
     */
    record Job(int no) implements Request {
        @Override
        public String op() {
            return "job";
        }
    }

    /**
     * {@code cancel} with {@code no}: one job.
     *
     * @param no its number
     */
    record Cancel(int no) implements Request {
        @Override
        public String op() {
            return "cancel";
        }
    }

    /**
     * {@code cancel} with {@code user}: every job of theirs that has not ended.
     *
     * @param user their name
     */
    record CancelUser(String user) implements Request {
        /**
         * Checks for null.
         *
         * @param user see {@link #user()}
         */
        public CancelUser {
            Objects.requireNonNull(user, "user");
        }

        @Override
        public String op() {
            return "cancel";
        }
    }

    /**
     * {@code pause}: start nothing new on a GPU.
     *
     * @param gpu its index
     */
    record Pause(int gpu) implements Request {
        @Override
        public String op() {
            return "pause";
        }
    }

    /**
     * {@code resume}: a paused GPU takes jobs again.
     *
     * @param gpu its index
     */
    record Resume(int gpu) implements Request {
        @Override
        public String op() {
            return "resume";
        }
    }

    /** {@code drain}: start no job from now on, exit once the running ones have ended. */
    record Drain() implements Request {
        @Override
        public String op() {
            return "drain";
        }
    }

    /** {@code dashboard}: the caller's own dashboard address. */
    record Dashboard() implements Request {
        @Override
        public String op() {
            return "dashboard";
        }
    }

    /**
     * {@code logs}: where a job's output is.
     *
     * @param no its number
     */
    record Logs(int no) implements Request {
        @Override
        public String op() {
            return "logs";
        }
    }

    /**
     * {@code srun}: GPUs for a command the client runs; the connection then belongs to the grant.
     *
     * @param line the request as a jobs-file line
     * @param cwd the absolute directory the command runs in (journaled, for the record)
     * @param output as {@link Submit#output()}
     * @param requestId as {@link Submit#requestId()}
     * @param umask as {@link Submit#umask()}
     */
    record Srun(String line, String cwd, Optional<String> output, Optional<String> requestId, OptionalInt umask)
            implements Request {
        /**
         * Checks for nulls.
         *
         * @param line see {@link #line()}
         * @param cwd see {@link #cwd()}
         * @param output see {@link #output()}
         * @param requestId see {@link #requestId()}
         * @param umask see {@link #umask()}
         */
        public Srun {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(cwd, "cwd");
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(requestId, "requestId");
            Objects.requireNonNull(umask, "umask");
        }

        /**
         * An srun with only a line and a directory, as {@code gpusched srun} sends it.
         *
         * @param line see {@link #line()}
         * @param cwd see {@link #cwd()}
         */
        public Srun(String line, String cwd) {
            this(line, cwd, Optional.empty(), Optional.empty(), OptionalInt.empty());
        }

        @Override
        public String op() {
            return "srun";
        }
    }

    /**
     * {@code srun_attach}: take a grant up again on a new connection.
     *
     * @param no the job's number
     * @param token the grant's {@code GPUSCHED_RUN}
     */
    record SrunAttach(int no, String token) implements Request {
        /**
         * Checks for null.
         *
         * @param no see {@link #no()}
         * @param token see {@link #token()}
         */
        public SrunAttach {
            Objects.requireNonNull(token, "token");
        }

        @Override
        public String op() {
            return "srun_attach";
        }
    }

    /**
     * {@code stats}: {@code gpusched stats}' figures from the daemon's journal, as the CLI prints them,
     * for a caller who cannot read the journal (root's, 0600). No plot: the daemon writes no file a
     * user names.
     *
     * @param sinceSeconds only the last this many seconds ({@code --since}), 1 to {@link #MAX_SINCE_SECONDS};
     *     empty: the whole journal
     * @param user only this user's jobs ({@code --user}), 1 to {@link #MAX_USER_CHARS} characters; empty:
     *     every job the caller may see
     * @param tolerance the band of a {@code within} verdict, in [0, 1); empty: the CLI's default
     * @param json whether the figures come as {@code gpusched stats --json} prints them
     * @param zone the time zone the text shows times in (the client's), an id such as {@code Europe/Paris},
     *     at most {@link #MAX_ZONE_CHARS} characters; empty: the daemon's
     */
    record Stats(OptionalInt sinceSeconds, Optional<String> user, java.util.OptionalDouble tolerance, boolean json,
                 Optional<String> zone) implements Request {
        /** The longest {@code since_s}: 3650 days, {@code --since}'s bound. */
        public static final int MAX_SINCE_SECONDS = 3650 * 86_400;
        /** The longest {@code user}, as {@link Text}'s. */
        public static final int MAX_USER_CHARS = 256;
        /** The longest {@code zone}. */
        public static final int MAX_ZONE_CHARS = 64;

        /**
         * Checks each field against its bound.
         *
         * @param sinceSeconds see {@link #sinceSeconds()}
         * @param user see {@link #user()}
         * @param tolerance see {@link #tolerance()}
         * @param json see {@link #json()}
         * @param zone see {@link #zone()}
         * @throws IllegalArgumentException naming the field out of its bound
         */
        public Stats {
            Objects.requireNonNull(sinceSeconds, "sinceSeconds");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(tolerance, "tolerance");
            Objects.requireNonNull(zone, "zone");
            if (sinceSeconds.isPresent() && (sinceSeconds.getAsInt() < 1 || sinceSeconds.getAsInt() > MAX_SINCE_SECONDS)) {
                throw new IllegalArgumentException("\"since_s\" must be 1 to " + MAX_SINCE_SECONDS + " seconds");
            }
            if (user.isPresent() && (user.get().isEmpty() || user.get().length() > MAX_USER_CHARS)) {
                throw new IllegalArgumentException("\"user\" must be 1 to " + MAX_USER_CHARS + " characters");
            }
            if (tolerance.isPresent() && !(tolerance.getAsDouble() >= 0 && tolerance.getAsDouble() < 1)) {
                throw new IllegalArgumentException("\"tolerance\" must be a share in [0, 1)");
            }
            if (zone.isPresent() && (zone.get().isEmpty() || zone.get().length() > MAX_ZONE_CHARS)) {
                throw new IllegalArgumentException("\"zone\" must be 1 to " + MAX_ZONE_CHARS + " characters");
            }
        }

        @Override
        public String op() {
            return "stats";
        }
    }

    /**
     * {@code exited}: how a granted command ended, on the srun's connection.
     *
     * @param status its exit status, 0 to 255 (128 + N after signal N)
     */
    record Exited(int status) implements Request {
        @Override
        public String op() {
            return "exited";
        }
    }
}
