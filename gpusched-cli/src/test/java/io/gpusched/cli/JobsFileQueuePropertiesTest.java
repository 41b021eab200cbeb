package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import io.gpusched.testkit.fake.ScriptedGpuBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's one definition, checked against the real engine under random edits: <em>pending = the
 * lines in the file that are neither running nor terminal</em>, in file order, where a job whose
 * {@code cancel} token was once applied stays cancelled.
 *
 * <p>Each try starts a real scheduler (watching, one scripted GPU) on a real jobs file and applies a
 * random sequence of appends, restored lines, deletions, moves, command edits, added and removed
 * {@code cancel} tokens, and job completions. Every job is undeclared, so it runs alone on the idle
 * GPU and the running job is predictable: the first line that is neither terminal nor cancelled. A job
 * runs until the test creates its marker file. After each step, once the engine has had a few rounds
 * to see the file, its board must show exactly the model's running job and pending queue.
 *
 * <p>Tries: {@value #DEFAULT_TRIES} (about 30 s); {@code -Dgpusched.editTries=N} runs more, and
 * {@code -Dgpusched.seed=S} replays a reported run (the seed is printed before the run starts, so it
 * survives a timeout).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class JobsFileQueuePropertiesTest {
    private static final int DEFAULT_TRIES = 16;
    private static final Duration POLL = Duration.ofMillis(20);
    private static final int ROUNDS_TO_SEE_A_CHANGE = 4;
    /** After the first failure, shrinking may take this long before the first failing sample is reported as is. */
    private static final Duration SHRINK_BUDGET = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    enum Kind { APPEND, RESTORE, DELETE, MOVE, EDIT, CANCEL, UNCANCEL, COMPLETE }

    /** One step; {@code a} and {@code b} pick lines, modulo how many there are when it runs. */
    record Op(Kind kind, int a, int b) {
        @Override
        public String toString() {
            return kind + "(" + a + "," + b + ")";
        }
    }

    /** The lines the file starts with, then the steps. */
    record Scenario(int initialLines, List<Op> ops) {
        @Override
        public String toString() {
            return "start with " + initialLines + " lines, then " + ops;
        }
    }

    private static Gen<Scenario> scenarios() {
        Gen<Kind> kinds = Gen.<Kind>weighted()
                .add(3, Gen.constant(Kind.APPEND)).add(1, Gen.constant(Kind.RESTORE)).add(2, Gen.constant(Kind.DELETE))
                .add(2, Gen.constant(Kind.MOVE)).add(2, Gen.constant(Kind.EDIT)).add(2, Gen.constant(Kind.CANCEL))
                .add(1, Gen.constant(Kind.UNCANCEL)).add(3, Gen.constant(Kind.COMPLETE)).build();
        Gen<Op> op = (random, size) -> new Op(kinds.next(random, size), random.nextInt(1000), random.nextInt(1000));
        return (random, size) -> {
            int n = random.nextInt(3, 6 + size);
            List<Op> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ops.add(op.next(random, size));
            }
            return new Scenario(random.nextInt(0, 5), List.copyOf(ops));
        };
    }

    @Test
    void pendingIsAlwaysTheFilesLinesThatAreNeitherRunningNorTerminal() {
        long seed = Long.getLong(Property.SEED_PROPERTY, new SplittableRandom().nextLong());
        System.out.println("JobsFileQueuePropertiesTest seed " + seed + " (replay with -D" + Property.SEED_PROPERTY + "=" + seed + ")");
        AtomicLong firstFailure = new AtomicLong();
        Property.forAll(scenarios()).tries(Integer.getInteger("gpusched.editTries", DEFAULT_TRIES)).seed(seed).check(s -> {
            long failedAt = firstFailure.get();
            if (failedAt != 0 && System.nanoTime() - failedAt > SHRINK_BUDGET.toNanos()) {
                return; // out of shrinking time: the first failing sample is reported
            }
            try {
                new Run(s).check();
            } catch (AssertionError | RuntimeException e) {
                firstFailure.compareAndSet(0, System.nanoTime());
                throw e;
            } catch (Exception e) {
                firstFailure.compareAndSet(0, System.nanoTime());
                throw new AssertionError(e);
            }
        });
    }

    /** One try: a scheduler on a fresh directory, the model beside it. */
    private final class Run {
        private final Scenario scenario;
        private final Path home;
        private final Path jobs;
        private final Model model;
        private final AtomicReference<StatusBoard> board = new AtomicReference<>();
        private final AtomicLong rounds = new AtomicLong();
        private final List<String> started = new CopyOnWriteArrayList<>();
        private final List<String> history = new ArrayList<>();

        Run(Scenario scenario) throws IOException {
            this.scenario = scenario;
            this.home = Files.createTempDirectory(dir, "try");
            this.jobs = home.resolve("jobs.txt");
            this.model = new Model(home.resolve("markers"));
            Files.createDirectories(home.resolve("markers"));
        }

        void check() throws Exception {
            for (int i = 0; i < scenario.initialLines(); i++) {
                model.lines.add(new Model.Line(model.fresh(), false));
            }
            Files.writeString(jobs, model.text());
            SchedulerOptions options = SchedulerOptions.defaults().withPoll(POLL).withSampleInterval(POLL)
                    .withKillGrace(Duration.ofMillis(200)).withWatch(true);
            Scheduler scheduler = Scheduler.builder().backend(ScriptedGpuBackend.withGpus(1, 24_000)).jobsFile(jobs)
                    .logDir(home.resolve("logs")).options(options).listener(this::observe).build();
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(scheduler::run);
            try {
                model.settle();
                awaitAgreement("start");
                for (Op op : scenario.ops()) {
                    apply(op);
                    model.settle();
                    awaitAgreement(op.toString());
                }
                assertEquals(new HashSet<>(started).size(), started.size(), "a job started twice: " + started);
                assertTrue(model.everGenerated.containsAll(started), "started something that was never a line: " + started);
            } finally {
                scheduler.close();
                run.get(30, TimeUnit.SECONDS);
            }
        }

        private void observe(SchedulerEvent e) {
            if (e instanceof SchedulerEvent.StatusUpdated u) {
                board.set(u.board());
                rounds.incrementAndGet();
            } else if (e instanceof SchedulerEvent.JobStarted j) {
                started.add(j.command());
            }
        }

        private void apply(Op op) throws IOException {
            history.add(op.toString());
            Optional<String> appended = model.apply(op);
            if (appended.isPresent()) {
                // As `echo ... >> jobs.txt` does: one O_APPEND write of a whole line.
                Files.writeString(jobs, appended.get(), StandardOpenOption.APPEND);
            } else if (!Files.readString(jobs).equals(model.text())) {
                // As an editor saving by rename does.
                Path tmp = home.resolve(".jobs.txt.tmp");
                Files.writeString(tmp, model.text());
                Files.move(tmp, jobs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        }

        private void awaitAgreement(String step) throws InterruptedException {
            long seen = rounds.get();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            List<String> wantRunning = model.running.map(List::of).orElse(List.of());
            List<String> wantPending = model.pending();
            while (true) {
                StatusBoard b = board.get();
                List<String> running = b == null ? null : b.running().stream().map(StatusBoard.Running::command).toList();
                List<String> pending = b == null ? null : b.pending().stream().map(StatusBoard.Pending::command).toList();
                if (rounds.get() >= seen + ROUNDS_TO_SEE_A_CHANGE && wantRunning.equals(running) && wantPending.equals(pending)) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("after " + step + " (steps " + history + "):\n  file " + model.lines
                            + "\n  terminal " + ids(model.terminal) + "\n  want running " + ids(wantRunning) + " pending "
                            + ids(wantPending) + "\n  engine running " + ids(running) + " pending " + ids(pending));
                }
                Thread.sleep(5);
            }
        }
    }

    /** @return the jobs' short names ({@code j3}) for messages; null stays null */
    private static List<String> ids(java.util.Collection<String> commands) {
        return commands == null ? null : commands.stream().map(Model::id).toList();
    }

    /** The independent model of the queue: what the file says, and what has ended. */
    private static final class Model {
        record Line(String command, boolean cancel) {
            @Override
            public String toString() {
                return (cancel ? "[cancel] " : "") + id(command);
            }
        }

        /** @return a job's marker name, which is its short name */
        static String id(String command) {
            return command.substring(command.lastIndexOf('/') + 1, command.indexOf(" ]"));
        }

        final List<Line> lines = new ArrayList<>();
        final Set<String> terminal = new LinkedHashSet<>();
        final Set<String> everGenerated = new HashSet<>();
        /** Commands that left the file, so a later step can put one back. */
        final List<String> removed = new ArrayList<>();
        Optional<String> running = Optional.empty();
        private final Path markers;
        private int nextId;

        Model(Path markers) {
            this.markers = markers;
        }

        String fresh() {
            String command = "until [ -e " + markers.resolve("j" + nextId++) + " ]; do sleep 0.02; done";
            everGenerated.add(command);
            return command;
        }

        String text() {
            StringBuilder sb = new StringBuilder();
            for (Line l : lines) {
                sb.append(l.cancel() ? "[cancel] " : "").append(l.command()).append('\n');
            }
            return sb.toString();
        }

        /** @return the text appended to the file, if the step is an append; otherwise the file is rewritten */
        Optional<String> apply(Op op) throws IOException {
            int n = lines.size();
            switch (op.kind()) {
                case APPEND -> {
                    return append(fresh());
                }
                case RESTORE -> {
                    List<String> back = removed.stream().filter(c -> lines.stream().noneMatch(l -> l.command().equals(c))).toList();
                    if (!back.isEmpty()) {
                        String c = back.get(op.a() % back.size());
                        removed.remove(c);
                        return append(c);
                    }
                }
                case DELETE -> {
                    if (n > 0) {
                        removed.add(lines.remove(op.a() % n).command());
                    }
                }
                case MOVE -> {
                    if (n > 1) {
                        Line l = lines.remove(op.a() % n);
                        lines.add(op.b() % n, l);
                    }
                }
                case EDIT -> {
                    if (n > 0) {
                        int i = op.a() % n;
                        removed.add(lines.get(i).command());
                        lines.set(i, new Line(fresh(), lines.get(i).cancel()));
                    }
                }
                case CANCEL, UNCANCEL -> {
                    boolean to = op.kind() == Kind.CANCEL;
                    List<Integer> candidates = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        if (lines.get(i).cancel() != to) {
                            candidates.add(i);
                        }
                    }
                    if (!candidates.isEmpty()) {
                        int i = candidates.get(op.a() % candidates.size());
                        lines.set(i, new Line(lines.get(i).command(), to));
                    }
                }
                case COMPLETE -> {
                    if (running.isPresent()) {
                        String c = running.get();
                        Files.createFile(markers.resolve(id(c)));
                        terminal.add(c);
                        running = Optional.empty();
                    }
                }
                default -> throw new IllegalStateException(op.toString());
            }
            return Optional.empty();
        }

        private Optional<String> append(String command) {
            lines.add(new Line(command, false));
            return Optional.of(command + "\n");
        }

        /** What the engine must do with the file as it now is: apply cancel tokens, then start the next job. */
        void settle() {
            for (Line l : lines) {
                if (l.cancel()) {
                    // Running or pending, a cancelled job ends; a terminal one is left as it ended.
                    if (running.equals(Optional.of(l.command()))) {
                        running = Optional.empty();
                    }
                    terminal.add(l.command());
                }
            }
            if (running.isEmpty()) {
                running = lines.stream().filter(this::eligible).map(Line::command).findFirst();
            }
        }

        List<String> pending() {
            return lines.stream().filter(this::eligible).map(Line::command)
                    .filter(c -> !running.equals(Optional.of(c))).toList();
        }

        private boolean eligible(Line l) {
            return !l.cancel() && !terminal.contains(l.command());
        }
    }
}
