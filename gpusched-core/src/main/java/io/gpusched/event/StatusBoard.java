package io.gpusched.event;

import io.gpusched.model.JobResult;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The queue at one moment, as the status board shows it.
 *
 * @param running running jobs, by display number
 * @param pending pending jobs in queue order, each with the reason it waits
 * @param done jobs that ended during this run, by display number
 * @param earlier jobs of the queue that had ended in an earlier run and are not run again, by display
 *     number
 * @param interrupted jobs the scheduler's stop interrupted (they run again on restart), by display
 *     number; only the last board of an interrupted run has any
 */
public record StatusBoard(List<Running> running, List<Pending> pending, List<JobResult> done,
                          List<JobResult> earlier, List<Interrupted> interrupted) {
    /**
     * Copies the lists.
     *
     * @param running see {@link #running()}
     * @param pending see {@link #pending()}
     * @param done see {@link #done()}
     * @param earlier see {@link #earlier()}
     * @param interrupted see {@link #interrupted()}
     */
    public StatusBoard {
        running = List.copyOf(running);
        pending = List.copyOf(pending);
        done = List.copyOf(done);
        earlier = List.copyOf(earlier);
        interrupted = List.copyOf(interrupted);
    }

    /**
     * A board of a run with no earlier outcomes and nothing interrupted.
     *
     * @param running see {@link #running()}
     * @param pending see {@link #pending()}
     * @param done see {@link #done()}
     */
    public StatusBoard(List<Running> running, List<Pending> pending, List<JobResult> done) {
        this(running, pending, done, List.of(), List.of());
    }

    /**
     * A job that was running when the scheduler was stopped; the journal holds it as interrupted.
     *
     * @param no display number
     * @param command shell command
     * @param gpus the GPUs it had
     * @param elapsed how long it had run
     */
    public record Interrupted(int no, String command, List<Integer> gpus, Duration elapsed) {
        /**
         * Copies the list.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         */
        public Interrupted {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * A running job.
     *
     * @param no display number
     * @param command shell command
     * @param gpus its GPUs
     * @param elapsed time since it started
     * @param currentMib MiB it holds now by GPU
     * @param peakMib its largest per-GPU peak
     * @param stopping why it is being stopped, if it is
     * @param owner the user it runs for, when known
     * @param declaredMib its per-GPU declaration for this attempt; empty for an undeclared job (it runs
     *     alone on its GPUs)
     * @param priority its priority (higher runs first; 0 unless the line says otherwise)
     * @param rule the requirement rule ({@code --requirements}) its declaration came from; empty when none
     * @param comment its line's free note ({@code comment=}); empty when none
     * @param cluster where it is on the cluster it was handed to, e.g. {@code slurm job 41 RUNNING}; empty for a
     *     job run here
     * @param tty whether it runs in a terminal of its own ({@code [tty]}) that {@code gpusched attach} reaches
     */
    public record Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                          long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping,
                          java.util.Optional<String> owner, OptionalLong declaredMib, int priority,
                          java.util.Optional<String> rule, @OmittedWhenEmpty java.util.Optional<String> comment,
                          @OmittedWhenEmpty java.util.Optional<String> cluster, @OmittedWhenEmpty boolean tty) {
        /**
         * Copies the collections.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         * @param declaredMib see {@link #declaredMib()}
         * @param priority see {@link #priority()}
         * @param rule see {@link #rule()}
         * @param comment see {@link #comment()}
         * @param cluster see {@link #cluster()}
         * @param tty see {@link #tty()}
         */
        public Running {
            gpus = List.copyOf(gpus);
            currentMib = Map.copyOf(currentMib);
            java.util.Objects.requireNonNull(owner, "owner");
            java.util.Objects.requireNonNull(declaredMib, "declaredMib");
            java.util.Objects.requireNonNull(rule, "rule");
            java.util.Objects.requireNonNull(comment, "comment");
            java.util.Objects.requireNonNull(cluster, "cluster");
        }

        /**
         * A running job without a terminal of its own.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         * @param declaredMib see {@link #declaredMib()}
         * @param priority see {@link #priority()}
         * @param rule see {@link #rule()}
         * @param comment see {@link #comment()}
         * @param cluster see {@link #cluster()}
         */
        public Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                       long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping,
                       java.util.Optional<String> owner, OptionalLong declaredMib, int priority,
                       java.util.Optional<String> rule, java.util.Optional<String> comment,
                       java.util.Optional<String> cluster) {
            this(no, command, gpus, elapsed, currentMib, peakMib, stopping, owner, declaredMib, priority, rule, comment,
                    cluster, false);
        }

        /**
         * A job running here (on no cluster).
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         * @param declaredMib see {@link #declaredMib()}
         * @param priority see {@link #priority()}
         * @param rule see {@link #rule()}
         * @param comment see {@link #comment()}
         */
        public Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                       long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping,
                       java.util.Optional<String> owner, OptionalLong declaredMib, int priority,
                       java.util.Optional<String> rule, java.util.Optional<String> comment) {
            this(no, command, gpus, elapsed, currentMib, peakMib, stopping, owner, declaredMib, priority, rule, comment,
                    java.util.Optional.empty());
        }

        /**
         * A running job whose declaration came from no requirement rule.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         * @param declaredMib see {@link #declaredMib()}
         * @param priority see {@link #priority()}
         */
        public Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                       long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping,
                       java.util.Optional<String> owner, OptionalLong declaredMib, int priority) {
            this(no, command, gpus, elapsed, currentMib, peakMib, stopping, owner, declaredMib, priority,
                    java.util.Optional.empty(), java.util.Optional.empty());
        }

        /**
         * A running job whose declaration and priority are not given (undeclared, priority 0).
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         * @param owner see {@link #owner()}
         */
        public Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                       long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping,
                       java.util.Optional<String> owner) {
            this(no, command, gpus, elapsed, currentMib, peakMib, stopping, owner, OptionalLong.empty(), 0);
        }

        /**
         * A running job whose owner is not given.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param elapsed see {@link #elapsed()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         * @param stopping see {@link #stopping()}
         */
        public Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                       long peakMib, java.util.Optional<SchedulerEvent.StopReason> stopping) {
            this(no, command, gpus, elapsed, currentMib, peakMib, stopping, java.util.Optional.empty());
        }
    }

    /**
     * A pending job.
     *
     * @param no display number
     * @param command shell command
     * @param declaredMib its declaration for the next attempt
     * @param attempts attempts already made (non-zero after an OOM)
     * @param reason why it waits, from the allocator (or why it was not tried this round)
     * @param owner the user it runs for, when known
     * @param held whether it is held back by its dependencies ({@code after=}): not placed at all until they
     *     end, unlike a job that waits for room
     * @param priority its priority (higher runs first; 0 unless the line says otherwise)
     * @param rule the requirement rule ({@code --requirements}) its declaration comes from; empty when none
     * @param comment its line's free note ({@code comment=}); empty when none
     * @param gpusAsked the GPUs it asks for, as its line says: a count ({@code 2}), a share of one
     *     ({@code 0.5}), and where it is pinned ({@code 2 on 0-1}); empty when not known
     * @param since since when it waits; empty when not known
     * @param tty whether it will run in a terminal of its own ({@code [tty]}) that {@code gpusched attach} reaches
     */
    public record Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                          java.util.Optional<String> owner, boolean held, int priority, java.util.Optional<String> rule,
                          @OmittedWhenEmpty java.util.Optional<String> comment,
                          @OmittedWhenEmpty java.util.Optional<String> gpusAsked,
                          @OmittedWhenEmpty java.util.Optional<Instant> since, @OmittedWhenEmpty boolean tty) {
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
         * @param comment see {@link #comment()}
         * @param gpusAsked see {@link #gpusAsked()}
         * @param since see {@link #since()}
         * @param tty see {@link #tty()}
         */
        public Pending {
            java.util.Objects.requireNonNull(owner, "owner");
            java.util.Objects.requireNonNull(rule, "rule");
            java.util.Objects.requireNonNull(comment, "comment");
            java.util.Objects.requireNonNull(gpusAsked, "gpusAsked");
            java.util.Objects.requireNonNull(since, "since");
        }

        /**
         * A pending job whose asked GPUs and waiting start are not known.
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
         * @param comment see {@link #comment()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                       java.util.Optional<String> owner, boolean held, int priority, java.util.Optional<String> rule,
                       java.util.Optional<String> comment) {
            this(no, command, declaredMib, attempts, reason, owner, held, priority, rule, comment,
                    java.util.Optional.empty(), java.util.Optional.empty(), false);
        }

        /**
         * A pending job whose asked GPUs and waiting start are not known.
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
         * @param comment see {@link #comment()}
         * @param tty see {@link #tty()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                       java.util.Optional<String> owner, boolean held, int priority, java.util.Optional<String> rule,
                       java.util.Optional<String> comment, boolean tty) {
            this(no, command, declaredMib, attempts, reason, owner, held, priority, rule, comment,
                    java.util.Optional.empty(), java.util.Optional.empty(), tty);
        }

        /**
         * A pending job without a terminal of its own.
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
         * @param comment see {@link #comment()}
         * @param gpusAsked see {@link #gpusAsked()}
         * @param since see {@link #since()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                       java.util.Optional<String> owner, boolean held, int priority, java.util.Optional<String> rule,
                       java.util.Optional<String> comment, java.util.Optional<String> gpusAsked,
                       java.util.Optional<Instant> since) {
            this(no, command, declaredMib, attempts, reason, owner, held, priority, rule, comment, gpusAsked, since, false);
        }

        /**
         * A pending job whose declaration comes from no requirement rule.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param declaredMib see {@link #declaredMib()}
         * @param attempts see {@link #attempts()}
         * @param reason see {@link #reason()}
         * @param owner see {@link #owner()}
         * @param held see {@link #held()}
         * @param priority see {@link #priority()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                       java.util.Optional<String> owner, boolean held, int priority) {
            this(no, command, declaredMib, attempts, reason, owner, held, priority, java.util.Optional.empty(),
                    java.util.Optional.empty());
        }

        /**
         * A pending job not held by dependencies, whose priority is not given (0).
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param declaredMib see {@link #declaredMib()}
         * @param attempts see {@link #attempts()}
         * @param reason see {@link #reason()}
         * @param owner see {@link #owner()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                       java.util.Optional<String> owner) {
            this(no, command, declaredMib, attempts, reason, owner, false, 0);
        }

        /**
         * A pending job whose owner is not given.
         *
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param declaredMib see {@link #declaredMib()}
         * @param attempts see {@link #attempts()}
         * @param reason see {@link #reason()}
         */
        public Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason) {
            this(no, command, declaredMib, attempts, reason, java.util.Optional.empty(), false, 0);
        }
    }
}
