package io.gpusched.protocol;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobState;
import io.gpusched.model.JobStatus;
import io.gpusched.model.LeaseEnd;
import io.gpusched.model.Verdict;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A line the service writes ({@code PROTOCOL.md}): an answer ({@code "v"}, {@code "ok"} and the op's
 * fields, in the order listed here), a {@link Failure}, an {@code srun}'s event, or a line that follows
 * an answer ({@link Rows} of a streamed queue, a {@link Part} of a job's command).
 */
public sealed interface Answer {
    /**
     * {@code "ok": false}: the request was refused.
     *
     * @param code the error code, e.g. {@code bad_job}
     * @param message one line a user can act on
     */
    record Failure(String code, String message) implements Answer {
        /**
         * Checks for nulls.
         *
         * @param code see {@link #code()}
         * @param message see {@link #message()}
         */
        public Failure {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * The answer to {@code hello}.
     *
     * @param server {@code "gpusched"}
     * @param user the caller, as the kernel named them
     */
    record Hello(String server, String user) implements Answer {
        /**
         * Checks for nulls.
         *
         * @param server see {@link #server()}
         * @param user see {@link #user()}
         */
        public Hello {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(user, "user");
        }
    }

    /**
     * The answer to {@code submit}, once the job is journaled; or, for a {@code unique} job whose owner
     * has the same job queued, running or ended ok, that job, and nothing was queued.
     *
     * @param no its display number, or the number of the job already there
     * @param already where the job already there stands ({@link JobState#PENDING}, {@link JobState#RUNNING}
     *     or {@link JobState#OK}); empty when this submission was queued
     */
    record Submitted(int no, Optional<JobState> already) implements Answer {
        /**
         * @param no see {@link #no()}
         * @param already see {@link #already()}
         */
        public Submitted {
            Objects.requireNonNull(already, "already");
        }

        /** @param no the number of the job just queued */
        public Submitted(int no) {
            this(no, Optional.empty());
        }
    }

    /**
     * The answer to {@code preview}: the job would start now on {@code gpus}, or would wait for
     * {@code waits}. A job that could never run is refused as a {@code submit} is ({@code infeasible}).
     *
     * @param gpus the GPUs it would start on, ascending; empty when it would wait
     * @param waits why it would wait, as the queue would say; empty when it would start
     */
    record Preview(List<Integer> gpus, Optional<String> waits) implements Answer {
        /**
         * Copies the list and checks that exactly one of the two is given.
         *
         * @param gpus see {@link #gpus()}
         * @param waits see {@link #waits()}
         */
        public Preview {
            gpus = List.copyOf(gpus);
            Objects.requireNonNull(waits, "waits");
            if (gpus.isEmpty() == waits.isEmpty()) {
                throw new IllegalArgumentException("a preview either starts on GPUs or waits, not both or neither");
            }
        }
    }

    /**
     * The answer to {@code queue}: the head line of a streamed answer, or the whole one-line answer.
     *
     * @param snapshot the queue; in a streamed head every board list is empty and the rows follow
     * @param rows a streamed head's row count of every list, in {@link BoardList} order; empty otherwise
     * @param lines a streamed head's number of {@link Rows} lines that follow; empty otherwise (also from a
     *     daemon older than streaming, whose one line is the whole queue)
     * @param leftOut a one-line answer's count of rows of each list that did not fit, only for lists with
     *     some; empty when all fit
     */
    record Queue(QueueView snapshot, Map<BoardList, Integer> rows, OptionalInt lines, Map<BoardList, Integer> leftOut)
            implements Answer {
        /**
         * Copies the counts, in {@link BoardList} order.
         *
         * @param snapshot see {@link #snapshot()}
         * @param rows see {@link #rows()}
         * @param lines see {@link #lines()}
         * @param leftOut see {@link #leftOut()}
         */
        public Queue {
            Objects.requireNonNull(snapshot, "snapshot");
            rows = ordered(rows);
            Objects.requireNonNull(lines, "lines");
            leftOut = ordered(leftOut);
        }

        /**
         * A one-line answer.
         *
         * @param snapshot see {@link #snapshot()}
         * @param leftOut see {@link #leftOut()}
         * @return the answer
         */
        public static Queue oneLine(QueueView snapshot, Map<BoardList, Integer> leftOut) {
            return new Queue(snapshot, Map.of(), OptionalInt.empty(), leftOut);
        }

        /**
         * A streamed answer's head.
         *
         * @param snapshot see {@link #snapshot()}; its board's rows are left out
         * @param rows see {@link #rows()}
         * @param lines see {@link #lines()}
         * @return the head
         */
        public static Queue streamedHead(QueueView snapshot, Map<BoardList, Integer> rows, int lines) {
            return new Queue(snapshot.withBoard(QueueView.Board.EMPTY), rows, OptionalInt.of(lines), Map.of());
        }

        private static Map<BoardList, Integer> ordered(Map<BoardList, Integer> m) {
            return m.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(m));
        }
    }

    /**
     * The head of a {@code queue} answer rendered as text ({@link Request.Text}): {@link #bytes()} bytes
     * of text follow it on the connection as they are, not as JSON: the lines {@code gpusched queue}
     * prints, in UTF-8, each ended by {@code \n}, for the client to copy to its output.
     *
     * @param bytes how many bytes of text follow; 0 or more
     */
    record QueueText(long bytes) implements Answer {
        /**
         * Checks the count.
         *
         * @param bytes see {@link #bytes()}
         * @throws IllegalArgumentException when negative
         */
        public QueueText {
            if (bytes < 0) {
                throw new IllegalArgumentException("\"text_bytes\" is a whole number, got " + bytes);
            }
        }
    }

    /**
     * The head of a {@code queue} answer rendered as text in chunks ({@link Request.Text#chunks()}):
     * {@code {"v":1,"ok":true,"text_chunks":true}}, then chunks as they are, not as JSON: each its length
     * in bytes in ASCII decimal ({@value #MIN_CHUNK_BYTES} to {@value #MAX_CHUNK_BYTES}, no sign, no
     * leading zero) and {@code \n}, then that many bytes of the lines {@code gpusched queue} prints, in
     * UTF-8, whole lines each ended by {@code \n}; the line {@code 0} ends the text. The daemon renders
     * the text once, a chunk at a time, where a {@link QueueText}'s head needs it counted first.
     */
    record QueueTextChunks() implements Answer {
        /** The shortest chunk, in bytes: a chunk holds at least one line, with its end. */
        public static final int MIN_CHUNK_BYTES = 1;
        /** The longest chunk, in bytes (1 MiB): what a client takes at most, the daemon writes at most. */
        public static final int MAX_CHUNK_BYTES = 1 << 20;
    }

    /**
     * A line of a streamed {@code queue} answer's rows.
     *
     * @param list the list they are of
     * @param rows some of its rows, in its order
     */
    record Rows(BoardList list, List<Row> rows) implements Answer {
        /**
         * Copies the rows.
         *
         * @param list see {@link #list()}
         * @param rows see {@link #rows()}
         */
        public Rows {
            Objects.requireNonNull(list, "list");
            rows = List.copyOf(rows);
        }
    }

    /**
     * The answer to {@code job}; {@link #parts()} {@link Part} lines follow.
     *
     * @param list where the job is
     * @param job its row, as in a {@code queue} answer
     * @param parts how many lines of its command follow
     */
    record Job(BoardList list, Row job, int parts) implements Answer {
        /**
         * Checks for nulls.
         *
         * @param list see {@link #list()}
         * @param job see {@link #job()}
         * @param parts see {@link #parts()}
         */
        public Job {
            Objects.requireNonNull(list, "list");
            Objects.requireNonNull(job, "job");
        }
    }

    /**
     * A line after a {@link Job} answer: the parts joined are the job's whole command.
     *
     * @param part at most {@link ProtocolCodec#COMMAND_PART_CHARS} characters of it
     */
    record Part(String part) implements Answer {
        /**
         * Checks for null.
         *
         * @param part see {@link #part()}
         */
        public Part {
            Objects.requireNonNull(part, "part");
        }
    }

    /**
     * The answer to {@code stats}; {@link #parts()} {@link Part} lines follow, which joined are what
     * {@code gpusched stats} prints to its output (the text, or the JSON), every line ended.
     *
     * @param parts how many lines of it follow
     * @param warnings what {@code gpusched stats} prints to its error output: journal lines skipped (counts
     *     and line numbers, never their contents)
     */
    record Stats(int parts, List<String> warnings) implements Answer {
        /**
         * Copies the warnings.
         *
         * @param parts see {@link #parts()}
         * @param warnings see {@link #warnings()}
         */
        public Stats {
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * The answer to {@code cancel} with {@code no}.
     *
     * @param outcome what happened
     */
    record Cancelled(CancelOutcome outcome) implements Answer {
        /**
         * Checks for null.
         *
         * @param outcome see {@link #outcome()}
         */
        public Cancelled {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * The answer to {@code cancel} with {@code user}.
     *
     * @param jobs each job's number and what happened, in number order; empty when they had none
     */
    record CancelledAll(SortedMap<Integer, CancelOutcome> jobs) implements Answer {
        /**
         * Copies the map.
         *
         * @param jobs see {@link #jobs()}
         */
        public CancelledAll {
            jobs = Collections.unmodifiableSortedMap(new TreeMap<>(jobs));
        }
    }

    /** The answer to {@code pause} and {@code resume}: nothing more than {@code ok}. */
    record Acknowledged() implements Answer {
    }

    /**
     * The answer to {@code drain}.
     *
     * @param running how many jobs ran when asked
     */
    record Draining(int running) implements Answer {
    }

    /**
     * The answer to {@code dashboard}.
     *
     * @param url the caller's own address of the dashboard, with their token
     */
    record DashboardUrl(String url) implements Answer {
        /**
         * Checks for null.
         *
         * @param url see {@link #url()}
         */
        public DashboardUrl {
            Objects.requireNonNull(url, "url");
        }
    }

    /**
     * The answer to {@code logs}.
     *
     * @param paths its log files, oldest first
     * @param state where the job stands; empty ({@code "unknown"} on the wire) for a number no job has
     * @param tty the tmux socket and session name its terminal has while it runs; empty from a daemon
     *     that does not say
     */
    record Logs(List<String> paths, Optional<io.gpusched.model.JobStage> state, Optional<String> tty) implements Answer {
        /**
         * Copies the list.
         *
         * @param paths see {@link #paths()}
         * @param state see {@link #state()}
         * @param tty see {@link #tty()}
         */
        public Logs {
            paths = List.copyOf(paths);
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(tty, "tty");
        }
    }

    /** A line of an {@code srun} or {@code srun_attach} session, named by its {@code "event"}. */
    sealed interface SrunEvent extends Answer {
        /** @return the job's number */
        int no();
    }

    /**
     * {@code "event": "queued"}: the request is queued.
     *
     * @param no its job number
     */
    record Queued(int no) implements SrunEvent {
    }

    /**
     * {@code "event": "waiting"}: where the request waits, whenever that changed.
     *
     * @param no its job number
     * @param position its place among the pending jobs, 1 being next
     * @param of how many jobs are pending
     * @param reason why it waits
     */
    record Waiting(int no, int position, int of, String reason) implements SrunEvent {
        /**
         * Checks for null.
         *
         * @param no see {@link #no()}
         * @param position see {@link #position()}
         * @param of see {@link #of()}
         * @param reason see {@link #reason()}
         */
        public Waiting {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * {@code "event": "granted"}: the GPUs are the client's.
     *
     * @param no its job number
     * @param gpus the GPUs granted
     * @param env the variables to run the command with, over the client's environment (in the order sent)
     */
    record Granted(int no, List<Integer> gpus, Map<String, String> env) implements SrunEvent {
        /**
         * Copies the collections, keeping the environment's order.
         *
         * @param no see {@link #no()}
         * @param gpus see {@link #gpus()}
         * @param env see {@link #env()}
         */
        public Granted {
            gpus = List.copyOf(gpus);
            env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        }
    }

    /**
     * {@code "event": "held"}: an {@code srun_attach} took the grant up again.
     *
     * @param no its job number
     */
    record Held(int no) implements SrunEvent {
    }

    /**
     * {@code "event": "ended"}: the answer to {@code exited}, once the outcome is journaled.
     *
     * @param no its job number
     * @param recorded whether the exit status was recorded
     * @param outcome how the job ended; empty when the daemon learned it otherwise (or not in time)
     */
    record Ended(int no, LeaseEnd recorded, Optional<Outcome> outcome) implements SrunEvent {
        /**
         * Checks for nulls.
         *
         * @param no see {@link #no()}
         * @param recorded see {@link #recorded()}
         * @param outcome see {@link #outcome()}
         */
        public Ended {
            Objects.requireNonNull(recorded, "recorded");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * How an srun's job ended, as its {@link Ended} answer says.
     *
     * @param status its status
     * @param exitCode its exit code
     * @param peakMib its largest per-GPU peak, when memory was attributed to it
     * @param declaredMib its per-GPU declaration, when it had one
     * @param verdict what the peak says about the declaration
     * @param seconds how long it ran, in seconds (millisecond precision)
     */
    record Outcome(JobStatus status, int exitCode, OptionalLong peakMib, OptionalLong declaredMib, Verdict verdict,
                   double seconds) {
        /**
         * Checks for nulls.
         *
         * @param status see {@link #status()}
         * @param exitCode see {@link #exitCode()}
         * @param peakMib see {@link #peakMib()}
         * @param declaredMib see {@link #declaredMib()}
         * @param verdict see {@link #verdict()}
         * @param seconds see {@link #seconds()}
         */
        public Outcome {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(peakMib, "peakMib");
            Objects.requireNonNull(declaredMib, "declaredMib");
            Objects.requireNonNull(verdict, "verdict");
        }
    }
}
