package io.gpusched.engine.loop;

import io.gpusched.event.SchedulerEvent;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Hands events to the listener on the loop's thread. Inside a journal group an event waits for the
 * group's fsync, so nothing is reported before what it reports is on disk. Each warning text is said
 * once per run. Warnings are dated by the loop's clock ({@link LoopClock}).
 */
public final class Reporter {
    private final Consumer<SchedulerEvent> listener;
    private final LoopClock clock;
    private final Set<String> warnedOnce = new HashSet<>();
    // Set once the journal is open (in run(), after construction); before that nothing is grouped.
    private Optional<Durability> durability = Optional.empty();

    public Reporter(Consumer<SchedulerEvent> listener, LoopClock clock) {
        this.listener = listener;
        this.clock = clock;
    }

    /** From now on, events emitted inside a journal group wait for its fsync. */
    public void holdFor(Durability d) {
        durability = Optional.of(d);
    }

    public void emit(SchedulerEvent e) {
        if (durability.isPresent() && durability.get().holding()) {
            durability.get().afterDurable(() -> emit(e));
            return;
        }
        try {
            listener.accept(e);
        } catch (RuntimeException ex) {
            // A broken listener must not stop the jobs it reports on.
            if (!(e instanceof SchedulerEvent.Warning)) {
                warnOnce("a scheduler listener failed: " + ex);
            }
        }
    }

    /**
     * A warning said each time it happens, for what can happen again with the same words (a jobs file
     * rewritten shorter twice); {@link #warnOnce} for the rest.
     *
     * @param message the warning, one line
     */
    public void warn(String message) {
        emit(new SchedulerEvent.Warning(clock.now(), message));
    }

    public void warnOnce(String message) {
        if (warnedOnce.size() >= 10_000) {
            // Runs for months: most warnings name a job, and a job's come once; forgetting old ones
            // only risks saying a long-past one again.
            warnedOnce.clear();
        }
        if (warnedOnce.add(message)) {
            emit(new SchedulerEvent.Warning(clock.now(), message));
        }
    }
}
