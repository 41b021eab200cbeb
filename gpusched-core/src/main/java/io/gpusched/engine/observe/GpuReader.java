package io.gpusched.engine.observe;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;

import io.gpusched.model.GpuschedException;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Reads the GPUs for the loop, through the time-bounded backend: a round's snapshot (failures counted
 * and reported; recovery said once), and the faster samples between rounds (a failed sample only loses
 * resolution). Each snapshot feeds attribution. The first one is checked against {@code --gpus}.
 */
public final class GpuReader {
    private final BoundedBackend gpus;
    private final SchedulerOptions options;
    private final Measurer measurer;
    private final Reporter reporter;
    private final LoopClock clock;
    private Optional<GpuSnapshot> last = Optional.empty();
    private boolean announced;
    private int failures;
    /** The backend's warnings of the last round's read: one still there is not said again. */
    private java.util.Set<String> standing = java.util.Set.of();

    public GpuReader(BoundedBackend gpus, SchedulerOptions options, Measurer measurer, Reporter reporter, LoopClock clock) {
        this.gpus = gpus;
        this.options = options;
        this.measurer = measurer;
        this.reporter = reporter;
        this.clock = clock;
    }

    /** @return the last snapshot read; present once a round's read succeeded */
    public GpuSnapshot last() {
        return last.orElseThrow();
    }

    /** @return the GPUs of the last snapshot; empty before the first */
    public List<GpuStat> lastGpus() {
        return last.map(GpuSnapshot::gpus).orElse(List.of());
    }

    /** @return failed reads in a row, up to the last one */
    public int failures() {
        return failures;
    }

    /**
     * A round's read.
     *
     * @return whether it answered (in time); placement never uses stale data
     * @throws GpuschedException on the first answer, if {@code --gpus} names a GPU it does not list
     */
    public boolean read() {
        GpuSnapshot snap;
        try {
            snap = gpus.snapshot();
        } catch (BackendException | UnsupportedOperationException e) {
            failures++;
            reporter.emit(new SchedulerEvent.BackendFailed(clock.now(), e.getMessage(), failures,
                    failures >= options.backendFailureLimit()));
            return false;
        }
        if (failures > 0) {
            reporter.emit(new SchedulerEvent.BackendRecovered(clock.now(), failures));
            failures = 0;
        }
        say(snap.warnings());
        last = Optional.of(snap);
        if (!announced) {
            checkAllowedGpus(snap);
            announced = true;
            reporter.emit(new SchedulerEvent.GpusDiscovered(clock.now(), snap.gpus().stream().map(GpuStat::index)
                    .filter(i -> options.placement().allows(i)).toList()));
        }
        measurer.attribute(snap);
        return true;
    }

    /**
     * Says each of the backend's warnings when it appears: once while it stands (a lost GPU is listed so at
     * every read), and again when it comes back after it went (the GPU reset, then lost again), which a
     * warning said once by its text never did. As a running job's device moves and losses are said
     * ({@code Measurer}): a GPU that flaps is said at each loss.
     */
    private void say(java.util.List<String> warnings) {
        if (warnings.isEmpty() && standing.isEmpty()) {
            return; // the common read: nothing to say, nothing standing
        }
        for (String w : warnings) {
            if (!standing.contains(w)) {
                reporter.warn(w);
            }
        }
        standing = java.util.Set.copyOf(warnings);
    }

    /** A sample between rounds, for peaks; the next round reports failures. */
    public void sample() {
        try {
            GpuSnapshot snap = gpus.snapshot();
            last = Optional.of(snap);
            measurer.attribute(snap);
        } catch (BackendException | UnsupportedOperationException e) {
            // a missed sample only loses resolution
        }
    }

    /**
     * A {@code --gpus} index the machine does not have is a typo, not a job's infeasibility: it would
     * fail every job for good. Refused before anything is placed.
     */
    private void checkAllowedGpus(GpuSnapshot snap) {
        Set<Integer> found = new TreeSet<>();
        snap.gpus().forEach(g -> found.add(g.index()));
        List<Integer> missing = options.allowedGpus().orElse(Set.of()).stream().filter(i -> !found.contains(i))
                .sorted().toList();
        if (!missing.isEmpty()) {
            throw new GpuschedException("--gpus names " + (missing.size() == 1 ? "GPU " : "GPUs ")
                    + missing.stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + ", which this machine does not have; GPUs found: " + (found.isEmpty() ? "none"
                    : found.stream().map(String::valueOf).collect(Collectors.joining(", ")))
                    + " — no job was started; give indices from that list");
        }
    }
}
