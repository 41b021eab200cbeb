package io.gpusched.protocol;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.Notes;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One job's row in a {@code queue} or {@code job} answer: a list view, its texts cut
 * ({@link ListText}) so a row stays small whatever a user submitted. Times are seconds as the wire
 * carries them (a decimal number); memory is in MiB.
 */
public sealed interface Row permits Row.Running, Row.Pending, Row.Ended, Row.Interrupted {
    /** @return the job's display number */
    int no();

    /** @return its command, cut to {@link ProtocolCodec#LIST_COMMAND_CHARS} in a list */
    ListText command();

    /**
     * @param command the command to carry instead (its whole text, say)
     * @return this row with that command
     */
    Row withCommand(ListText command);

    /** @return the user it runs or ran for, when known; an interrupted job's row does not say */
    Optional<ListText> owner();

    /**
     * @param row a row of a {@link StatusBoard} list: a {@link StatusBoard.Running}, {@link StatusBoard.Pending},
     *     {@link JobResult} or {@link StatusBoard.Interrupted}
     * @return it as a list view shows it: the command cut to {@link ProtocolCodec#LIST_COMMAND_CHARS}, other
     *     texts to {@link ProtocolCodec#LIST_TEXT_CHARS}
     * @throws IllegalArgumentException for anything else
     */
    static Row listed(Object row) {
        if (row instanceof StatusBoard.Running r) {
            return Running.listed(r);
        } else if (row instanceof StatusBoard.Pending p) {
            return Pending.listed(p);
        } else if (row instanceof JobResult j) {
            return Ended.listed(j);
        } else if (row instanceof StatusBoard.Interrupted i) {
            return Interrupted.listed(i);
        }
        throw new IllegalArgumentException("not a board row: " + (row == null ? "null" : row.getClass().getName()));
    }

    /** {@code d} in seconds as the wire writes it: its nanoseconds over 10^9. */
    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static ListText cutCommand(String s) {
        return ListText.cut(s, ProtocolCodec.LIST_COMMAND_CHARS);
    }

    private static ListText cutText(String s) {
        return ListText.cut(s, ProtocolCodec.LIST_TEXT_CHARS);
    }

    private static Optional<ListText> cutText(Optional<String> s) {
        return s.map(Row::cutText);
    }

    private static Map<Integer, Long> byGpu(Map<Integer, Long> m) {
        return Collections.unmodifiableMap(new TreeMap<>(m));
    }

    /**
     * A running job.
     *
     * @param no display number
     * @param command shell command
     * @param gpus its GPUs
     * @param elapsedSeconds time since it started, in seconds
     * @param currentMib MiB it holds now, by GPU index (ascending)
     * @param peakMib its largest per-GPU peak
     * @param stopping why it is being stopped, if it is
     * @param owner the user it runs for, when known
     * @param declaredMib its per-GPU declaration for this attempt; empty when undeclared (or from a daemon
     *     older than the field)
     * @param priority its priority (0 from a daemon older than the field)
     * @param rule the requirement rule its declaration came from; empty when none
     * @param notes its line's shown attributes ({@code comment=}), each a field of its own on the wire under
     *     the attribute's field name; none when it has none (or from a daemon older than the field)
     * @param cluster where it is on the cluster a run handed it to ({@code slurm job 41 RUNNING}); empty for a
     *     job run on the scheduler's machine (or from a daemon older than the field)
     * @param tty whether it runs in a terminal of its own ({@code [tty]}, {@code gpusched attach}); false from a
     *     daemon older than the field
     */
    record Running(int no, ListText command, List<Integer> gpus, double elapsedSeconds, Map<Integer, Long> currentMib,
                   long peakMib, Optional<SchedulerEvent.StopReason> stopping, Optional<ListText> owner,
                   OptionalLong declaredMib, int priority, Optional<ListText> rule, Notes<ListText> notes,
                   Optional<ListText> cluster, boolean tty)
            implements Row {
        /**
         * Copies the collections.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsedSeconds see {@link #elapsedSeconds()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         * @param declaredMib see {@link #declaredMib()}
         * @param priority see {@link #priority()}
         * @param rule see {@link #rule()}
         * @param notes see {@link #notes()}
         * @param cluster see {@link #cluster()}
         * @param tty see {@link #tty()}
         */
        public Running {
            Objects.requireNonNull(command, "command");
            gpus = List.copyOf(gpus);
            currentMib = byGpu(currentMib);
            Objects.requireNonNull(stopping, "stopping");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(declaredMib, "declaredMib");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(notes, "notes");
            Objects.requireNonNull(cluster, "cluster");
        }

        /**
         * @param r a running job as the scheduler's board holds it
         * @return its row, texts cut
         */
        public static Running listed(StatusBoard.Running r) {
            return new Running(r.no(), cutCommand(r.command()), r.gpus(), seconds(r.elapsed()), r.currentMib(), r.peakMib(),
                    r.stopping(), cutText(r.owner()), r.declaredMib(), r.priority(), cutText(r.rule()),
                    r.notes().map(Row::cutText), cutText(r.cluster()), r.tty());
        }

        @Override
        public Running withCommand(ListText c) {
            return new Running(no, c, gpus, elapsedSeconds, currentMib, peakMib, stopping, owner, declaredMib, priority, rule,
                    notes, cluster, tty);
        }
    }

    /**
     * A pending job.
     *
     * @param no display number
     * @param command shell command
     * @param declaredMib its declaration for the next attempt; empty when undeclared
     * @param attempts attempts already made (non-zero after an OOM)
     * @param reason why it waits
     * @param owner the user it runs for, when known
     * @param held whether its dependencies ({@code after=}) hold it back
     * @param priority its priority (0 from a daemon older than the field)
     * @param rule the requirement rule its declaration comes from; empty when none
     * @param notes its line's shown attributes ({@code comment=}), each a field of its own on the wire under
     *     the attribute's field name; none when it has none (or from a daemon older than the field)
     * @param gpusAsked the GPUs it asks for, in its line's words ({@code 2}, {@code 0.5}, {@code 1 on 2-3});
     *     empty from a daemon older than the field
     * @param since since when it waits (the waiting so far is the snapshot's {@code at} less this); empty
     *     from a daemon older than the field
     * @param tty whether it will run in a terminal of its own ({@code [tty]}, {@code gpusched attach}); false
     *     from a daemon older than the field
     */
    record Pending(int no, ListText command, OptionalLong declaredMib, int attempts, ListText reason,
                   Optional<ListText> owner, boolean held, int priority, Optional<ListText> rule,
                   Notes<ListText> notes, Optional<ListText> gpusAsked, Optional<java.time.Instant> since,
                   boolean tty) implements Row {
        /**
         * Checks for nulls.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param declaredMib see {@link #declaredMib()}
         * @param attempts see {@link #attempts()}
         * @param reason see {@link #reason()}
         * @param owner see {@link #owner()}
         * @param held see {@link #held()}
         * @param priority see {@link #priority()}
         * @param rule see {@link #rule()}
         * @param notes see {@link #notes()}
         * @param gpusAsked see {@link #gpusAsked()}
         * @param since see {@link #since()}
         * @param tty see {@link #tty()}
         */
        public Pending {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(declaredMib, "declaredMib");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(notes, "notes");
            Objects.requireNonNull(gpusAsked, "gpusAsked");
            Objects.requireNonNull(since, "since");
        }

        /**
         * @param p a pending job as the scheduler's board holds it
         * @return its row, texts cut
         */
        public static Pending listed(StatusBoard.Pending p) {
            return new Pending(p.no(), cutCommand(p.command()), p.declaredMib(), p.attempts(), cutText(p.reason()),
                    cutText(p.owner()), p.held(), p.priority(), cutText(p.rule()), p.notes().map(Row::cutText),
                    cutText(p.gpusAsked()), p.since(), p.tty());
        }

        @Override
        public Pending withCommand(ListText c) {
            return new Pending(no, c, declaredMib, attempts, reason, owner, held, priority, rule, notes, gpusAsked,
                    since, tty);
        }
    }

    /**
     * A job that ended (the {@code done} and {@code earlier} lists).
     *
     * @param key its identity key
     * @param no display number
     * @param command shell command
     * @param gpus the GPUs of its last attempt; empty if it never started
     * @param status how it ended
     * @param exitCode its exit code
     * @param declaredMib its per-GPU declaration for the last attempt; empty when undeclared
     * @param peakMib its per-GPU peaks by GPU index (ascending); empty when never attributed
     * @param verdict what the peak says about the declaration
     * @param avgUtilPercent average utilisation over its GPUs, when known
     * @param durationSeconds wall time of its last attempt, in seconds
     * @param measurement how its peak was measured, or why there is none
     * @param cause why it failed when its exit status alone does not say
     * @param owner the user it ran for, when known
     * @param learned what a learned declaration ({@code vram=auto}) was learned from
     */
    record Ended(ListText key, int no, ListText command, List<Integer> gpus, JobStatus status, int exitCode,
                 OptionalLong declaredMib, Map<Integer, Long> peakMib, Verdict verdict, OptionalDouble avgUtilPercent,
                 double durationSeconds, Measurement measurement, Optional<ListText> cause, Optional<ListText> owner,
                 Optional<ListText> learned) implements Row {
        /**
         * Copies the collections.
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param status see {@link #status()}
         * @param exitCode see {@link #exitCode()}
         * @param declaredMib see {@link #declaredMib()}
         * @param peakMib see {@link #peakMib()}
         * @param verdict see {@link #verdict()}
         * @param avgUtilPercent see {@link #avgUtilPercent()}
         * @param durationSeconds see {@link #durationSeconds()}
         * @param measurement see {@link #measurement()}
         * @param cause see {@link #cause()}
         * @param owner see {@link #owner()}
         * @param learned see {@link #learned()}
         */
        public Ended {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(command, "command");
            gpus = List.copyOf(gpus);
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(declaredMib, "declaredMib");
            peakMib = byGpu(peakMib);
            Objects.requireNonNull(verdict, "verdict");
            Objects.requireNonNull(avgUtilPercent, "avgUtilPercent");
            Objects.requireNonNull(measurement, "measurement");
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(learned, "learned");
        }

        /**
         * @param j an outcome as the scheduler's board holds it
         * @return its row, texts cut
         */
        public static Ended listed(JobResult j) {
            return new Ended(cutText(j.key()), j.no(), cutCommand(j.command()), j.gpus(), j.status(), j.exitCode(),
                    j.declaredMib(), j.peakMib(), j.verdict(), j.avgUtilPercent(), seconds(j.duration()), j.measurement(),
                    cutText(j.cause()), cutText(j.owner()), cutText(j.learned()));
        }

        @Override
        public Ended withCommand(ListText c) {
            return new Ended(key, no, c, gpus, status, exitCode, declaredMib, peakMib, verdict, avgUtilPercent, durationSeconds,
                    measurement, cause, owner, learned);
        }

        /**
         * @return the verdict in the log's words with underscores, as the wire's {@code declaration} carries it:
         *     {@code under_declared} (the peak was {@link Verdict#OVER} the declaration), {@code over_declared},
         *     {@code within}; empty when nothing was judged
         */
        public Optional<String> declaration() {
            return verdict.declaration().map(w -> w.replace('-', '_'));
        }

        /** @return the largest per-GPU peak in MiB, or 0 when never attributed */
        public long overallPeakMib() {
            return peakMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /**
     * A job the scheduler's stop interrupted; it runs again on restart.
     *
     * @param no display number
     * @param command shell command
     * @param gpus the GPUs it had
     * @param elapsedSeconds how long it had run, in seconds
     */
    record Interrupted(int no, ListText command, List<Integer> gpus, double elapsedSeconds) implements Row {
        /**
         * Copies the list.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsedSeconds see {@link #elapsedSeconds()}
         */
        public Interrupted {
            Objects.requireNonNull(command, "command");
            gpus = List.copyOf(gpus);
        }

        /**
         * @param i an interrupted job as the scheduler's board holds it
         * @return its row, texts cut
         */
        public static Interrupted listed(StatusBoard.Interrupted i) {
            return new Interrupted(i.no(), cutCommand(i.command()), i.gpus(), seconds(i.elapsed()));
        }

        @Override
        public Interrupted withCommand(ListText c) {
            return new Interrupted(no, c, gpus, elapsedSeconds);
        }

        /** @return empty: the journal does not keep an interrupted job's owner on the board */
        @Override
        public Optional<ListText> owner() {
            return Optional.empty();
        }
    }
}
