package io.gpusched;

import io.gpusched.engine.Engine;
import io.gpusched.engine.loop.LoopWait;
import io.gpusched.engine.loop.VirtualTime;
import io.gpusched.engine.sim.SimulatedMachine;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.RunSummary;
import io.gpusched.model.SubmitContext;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The scheduler's own engine on simulated GPUs and a virtual clock: what a run of these jobs would do,
 * decided by the same queue policy, placement, deadlines and outcome rules as a real run, in the time its
 * rounds take to compute. Nothing runs: each attempt of a job ends when its work is done in virtual time
 * (or when the scheduler stops it: at its {@code timeout=}, where a time slice keeps the work done, or
 * preempted, where it is lost), and the GPUs report each running job's known peak. No external process
 * and no failure (exit status, CUDA OOM) is modelled. It backs {@code gpusched simulate} and the
 * testkit's replay.
 *
 * <p>Each job is a submission at its arrival, in the given order among equal arrivals (so they are
 * numbered in arrival order), all of one owner. The virtual clock starts at {@link #START}; every event
 * is dated on it. The run ends when every job has arrived and nothing runs or waits, or when what still
 * waits can never start (nothing runs and nothing more arrives). Nothing is written anywhere: the journal
 * is kept in memory, no run leaves a file, and the log directory the events name ({@link #LOG_DIR}) is
 * never created.
 */
public final class Simulation {
    /** The virtual clock's zero: every event's time is its offset from this. */
    public static final Instant START = Instant.EPOCH;

    /**
     * The log directory a simulation's events and jobs name (their logs, their working directory): never
     * created, read or written.
     */
    public static final Path LOG_DIR = Path.of("/nonexistent/gpusched-simulation");

    /** The poll and sample interval a simulation runs with: it decides on events, not on a cadence. */
    private static final Duration CADENCE = Duration.ofDays(1);

    private Simulation() {
    }

    /**
     * One job of a simulation.
     *
     * @param spec what it asks for (its command is not run)
     * @param arrival when it is submitted, from {@link #START}; not negative
     * @param work how long it runs in all if nothing stops it; not negative
     * @param peakMib its per-GPU peak in MiB, if known: reported by the GPUs while it runs
     */
    public record Job(JobSpec spec, Duration arrival, Duration work, OptionalLong peakMib) {
        /**
         * Checks the fields.
         *
         * @param spec see {@link #spec()}
         * @param arrival see {@link #arrival()}
         * @param work see {@link #work()}
         * @param peakMib see {@link #peakMib()}
         */
        public Job {
            Objects.requireNonNull(spec, "spec");
            Objects.requireNonNull(peakMib, "peakMib");
            if (arrival.isNegative() || work.isNegative()) {
                throw new IllegalArgumentException("arrival and work must be >= 0, got "
                        + io.gpusched.jobs.Units.formatDuration(arrival) + " and " + io.gpusched.jobs.Units.formatDuration(work));
            }
        }
    }

    /**
     * What a simulation did.
     *
     * @param summary the engine's summary of the run
     * @param jobs each job by the display number the engine gave it
     */
    public record Result(RunSummary summary, Map<Integer, Job> jobs) {
        /**
         * Copies the map.
         *
         * @param summary see {@link #summary()}
         * @param jobs see {@link #jobs()}
         */
        public Result {
            Objects.requireNonNull(summary, "summary");
            jobs = Map.copyOf(jobs);
        }
    }

    /**
     * Runs the jobs on the calling thread, which becomes the engine's loop.
     *
     * @param gpuTotalsMib memory of each GPU in MiB, indexed from 0; at least one
     * @param options the scheduler's tunables (its poll and sample interval are the simulation's own,
     *     and it watches for arrivals)
     * @param jobs the jobs
     * @param listener receives every event, on the calling thread, dated on the virtual clock
     * @return the summary, and which job each number is
     */
    public static Result run(List<Long> gpuTotalsMib, SchedulerOptions options, List<Job> jobs,
                             Consumer<SchedulerEvent> listener) {
        Path logDir = LOG_DIR;
        VirtualTime time = new VirtualTime(START);
        SimulatedMachine machine = new SimulatedMachine(time, gpuTotalsMib);
        List<Job> arrivals = new ArrayList<>(jobs);
        arrivals.sort(Comparator.comparing(Job::arrival)); // stable: the given order among equal arrivals
        Map<Integer, Job> numbers = Collections.synchronizedMap(new HashMap<>());
        int[] toArrive = {arrivals.size()};
        Engine[] engine = new Engine[1];
        // The loop waits on the virtual clock; once nothing runs and nothing more is to arrive, what still
        // waits can never start: one more round to be sure (a wait of a poll), then stop.
        int[] idleWaits = {0};
        LoopWait waits = (inbox, nanos) -> {
            boolean idle = nanos > 0 && inbox.isEmpty() && toArrive[0] == 0 && machine.running() == 0;
            idleWaits[0] = idle ? idleWaits[0] + 1 : 0;
            if (idleWaits[0] == 2) {
                engine[0].stop();
            }
            return time.next(inbox, nanos);
        };
        Consumer<SchedulerEvent> ending = e -> {
            listener.accept(e);
            if (e instanceof SchedulerEvent.Drained d && d.watching() && toArrive[0] == 0) {
                engine[0].stop(); // all came, all ended
            }
        };
        SchedulerOptions simulated = options.withPoll(CADENCE).withSampleInterval(CADENCE).withWatch(true);
        engine[0] = Engine.simulated(machine, time, waits, simulated, logDir, ending);
        SubmitContext owner = new SubmitContext("simulation", logDir.toAbsolutePath(), Optional.of(Map.of()));
        for (Job j : arrivals) {
            Runnable submit = () -> {
                toArrive[0]--;
                engine[0].submit(j.spec(), owner, new CompletableFuture<>(), Optional.empty()).thenAccept(no -> {
                    numbers.put(no, j);
                    machine.expect(no, j.work(), j.peakMib(), j.spec().timeout());
                });
            };
            if (j.arrival().isZero()) {
                submit.run(); // queued before the loop's first round
            } else {
                time.at(j.arrival().toNanos(), submit);
            }
        }
        RunSummary summary = engine[0].run();
        return new Result(summary, numbers);
    }
}
