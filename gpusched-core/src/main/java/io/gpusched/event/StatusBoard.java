package io.gpusched.event;

import io.gpusched.jobs.Notes;
import io.gpusched.model.JobResult;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
     * A running job. Made by {@link #builder(int, String)}, or this canonical constructor.
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
     * @param notes its line's shown attributes ({@code comment=}); JSON writes each as a field of its own here,
     *     under the attribute's field name, and none when it has none
     * @param cluster where it is on the cluster it was handed to, e.g. {@code slurm job 41 RUNNING}; empty for a
     *     job run here
     * @param tty whether it runs in a terminal of its own ({@code [tty]}) that {@code gpusched attach} reaches
     */
    public record Running(int no, String command, List<Integer> gpus, Duration elapsed, Map<Integer, Long> currentMib,
                          long peakMib, Optional<SchedulerEvent.StopReason> stopping, Optional<String> owner,
                          OptionalLong declaredMib, int priority, Optional<String> rule, Notes<String> notes,
                          @OmittedWhenEmpty Optional<String> cluster, @OmittedWhenEmpty boolean tty) {
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
         * @param notes see {@link #notes()}
         * @param cluster see {@link #cluster()}
         * @param tty see {@link #tty()}
         */
        public Running {
            gpus = List.copyOf(gpus);
            currentMib = Map.copyOf(currentMib);
            Objects.requireNonNull(stopping, "stopping");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(declaredMib, "declaredMib");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(notes, "notes");
            Objects.requireNonNull(cluster, "cluster");
        }

        /**
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @return a builder of a running job with these, on no GPU, just started, holding nothing, not stopping,
         *     owner unknown, undeclared, priority 0, from no rule, without notes, here, without a terminal
         */
        public static Builder builder(int no, String command) {
            return new Builder(no, command);
        }

        /** Builds a {@link Running}, each setter naming the component it sets; what is not set keeps its default. */
        public static final class Builder {
            private final int no;
            private final String command;
            private List<Integer> gpus = List.of();
            private Duration elapsed = Duration.ZERO;
            private Map<Integer, Long> currentMib = Map.of();
            private long peakMib;
            private Optional<SchedulerEvent.StopReason> stopping = Optional.empty();
            private Optional<String> owner = Optional.empty();
            private OptionalLong declaredMib = OptionalLong.empty();
            private int priority;
            private Optional<String> rule = Optional.empty();
            private Notes<String> notes = Notes.none();
            private Optional<String> cluster = Optional.empty();
            private boolean tty;

            private Builder(int no, String command) {
                this.no = no;
                this.command = Objects.requireNonNull(command, "command");
            }

            /**
             * @param v see {@link Running#gpus()}
             * @return this
             */
            public Builder gpus(List<Integer> v) {
                gpus = v;
                return this;
            }

            /**
             * @param v see {@link Running#elapsed()}
             * @return this
             */
            public Builder elapsed(Duration v) {
                elapsed = v;
                return this;
            }

            /**
             * @param v see {@link Running#currentMib()}
             * @return this
             */
            public Builder currentMib(Map<Integer, Long> v) {
                currentMib = v;
                return this;
            }

            /**
             * @param v see {@link Running#peakMib()}
             * @return this
             */
            public Builder peakMib(long v) {
                peakMib = v;
                return this;
            }

            /**
             * @param v see {@link Running#stopping()}
             * @return this
             */
            public Builder stopping(Optional<SchedulerEvent.StopReason> v) {
                stopping = v;
                return this;
            }

            /**
             * @param v see {@link Running#owner()}
             * @return this
             */
            public Builder owner(Optional<String> v) {
                owner = v;
                return this;
            }

            /**
             * @param v see {@link Running#declaredMib()}
             * @return this
             */
            public Builder declaredMib(OptionalLong v) {
                declaredMib = v;
                return this;
            }

            /**
             * @param v see {@link Running#priority()}
             * @return this
             */
            public Builder priority(int v) {
                priority = v;
                return this;
            }

            /**
             * @param v see {@link Running#rule()}
             * @return this
             */
            public Builder rule(Optional<String> v) {
                rule = v;
                return this;
            }

            /**
             * @param v see {@link Running#notes()}
             * @return this
             */
            public Builder notes(Notes<String> v) {
                notes = v;
                return this;
            }

            /**
             * @param v see {@link Running#cluster()}
             * @return this
             */
            public Builder cluster(Optional<String> v) {
                cluster = v;
                return this;
            }

            /**
             * @param v see {@link Running#tty()}
             * @return this
             */
            public Builder tty(boolean v) {
                tty = v;
                return this;
            }

            /** @return the running job */
            public Running build() {
                return new Running(no, command, gpus, elapsed, currentMib, peakMib, stopping, owner, declaredMib, priority,
                        rule, notes, cluster, tty);
            }
        }
    }

    /**
     * A pending job. Made by {@link #builder(int, String)}, or this canonical constructor.
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
     * @param notes its line's shown attributes ({@code comment=}); JSON writes each as a field of its own here,
     *     under the attribute's field name, and none when it has none
     * @param gpusAsked the GPUs it asks for, as its line says: a count ({@code 2}), a share of one
     *     ({@code 0.5}), and where it is pinned ({@code 2 on 0-1}); empty when not known
     * @param since since when it waits; empty when not known
     * @param tty whether it will run in a terminal of its own ({@code [tty]}) that {@code gpusched attach} reaches
     */
    public record Pending(int no, String command, OptionalLong declaredMib, int attempts, String reason,
                          Optional<String> owner, boolean held, int priority, Optional<String> rule, Notes<String> notes,
                          @OmittedWhenEmpty Optional<String> gpusAsked, @OmittedWhenEmpty Optional<Instant> since,
                          @OmittedWhenEmpty boolean tty) {
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
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(notes, "notes");
            Objects.requireNonNull(gpusAsked, "gpusAsked");
            Objects.requireNonNull(since, "since");
        }

        /**
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @return a builder of a pending job with these: undeclared, no attempt yet, no reason known (""), owner
         *     unknown, not held, priority 0, from no rule, without notes, asked GPUs and waiting start unknown,
         *     without a terminal
         */
        public static Builder builder(int no, String command) {
            return new Builder(no, command);
        }

        /** Builds a {@link Pending}, each setter naming the component it sets; what is not set keeps its default. */
        public static final class Builder {
            private final int no;
            private final String command;
            private OptionalLong declaredMib = OptionalLong.empty();
            private int attempts;
            private String reason = "";
            private Optional<String> owner = Optional.empty();
            private boolean held;
            private int priority;
            private Optional<String> rule = Optional.empty();
            private Notes<String> notes = Notes.none();
            private Optional<String> gpusAsked = Optional.empty();
            private Optional<Instant> since = Optional.empty();
            private boolean tty;

            private Builder(int no, String command) {
                this.no = no;
                this.command = Objects.requireNonNull(command, "command");
            }

            /**
             * @param v see {@link Pending#declaredMib()}
             * @return this
             */
            public Builder declaredMib(OptionalLong v) {
                declaredMib = v;
                return this;
            }

            /**
             * @param v see {@link Pending#attempts()}
             * @return this
             */
            public Builder attempts(int v) {
                attempts = v;
                return this;
            }

            /**
             * @param v see {@link Pending#reason()}
             * @return this
             */
            public Builder reason(String v) {
                reason = v;
                return this;
            }

            /**
             * @param v see {@link Pending#owner()}
             * @return this
             */
            public Builder owner(Optional<String> v) {
                owner = v;
                return this;
            }

            /**
             * @param v see {@link Pending#held()}
             * @return this
             */
            public Builder held(boolean v) {
                held = v;
                return this;
            }

            /**
             * @param v see {@link Pending#priority()}
             * @return this
             */
            public Builder priority(int v) {
                priority = v;
                return this;
            }

            /**
             * @param v see {@link Pending#rule()}
             * @return this
             */
            public Builder rule(Optional<String> v) {
                rule = v;
                return this;
            }

            /**
             * @param v see {@link Pending#notes()}
             * @return this
             */
            public Builder notes(Notes<String> v) {
                notes = v;
                return this;
            }

            /**
             * @param v see {@link Pending#gpusAsked()}
             * @return this
             */
            public Builder gpusAsked(Optional<String> v) {
                gpusAsked = v;
                return this;
            }

            /**
             * @param v see {@link Pending#since()}
             * @return this
             */
            public Builder since(Optional<Instant> v) {
                since = v;
                return this;
            }

            /**
             * @param v see {@link Pending#tty()}
             * @return this
             */
            public Builder tty(boolean v) {
                tty = v;
                return this;
            }

            /** @return the pending job */
            public Pending build() {
                return new Pending(no, command, declaredMib, attempts, reason, owner, held, priority, rule, notes, gpusAsked,
                        since, tty);
            }
        }
    }
}
