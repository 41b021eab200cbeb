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
     */
    record Queue(boolean stream) implements Request {
        @Override
        public String op() {
            return "queue";
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
