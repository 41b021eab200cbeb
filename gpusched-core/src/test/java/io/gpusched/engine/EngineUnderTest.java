package io.gpusched.engine;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.JobResult;
import io.gpusched.model.RunSummary;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An engine whose loop runs on a thread of its own for a test, with every event it reports kept: the
 * harness of the tests that drive the real loop through fake ports ({@link EngineDecisionsTest},
 * {@link RunsElsewhereTest}).
 */
final class EngineUnderTest {
    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
    /** Called on the loop's thread with each event, before the loop goes on. */
    private volatile Consumer<SchedulerEvent> onEvent = e -> { };
    private Engine engine;
    private CompletableFuture<RunSummary> run;

    /**
     * @param build makes the engine, given the event sink to report to
     * @return the engine, its loop started
     */
    Engine start(Function<Consumer<SchedulerEvent>, Engine> build) {
        engine = build.apply(e -> {
            onEvent.accept(e);
            events.add(e);
        });
        run = new CompletableFuture<>();
        Thread loop = new Thread(() -> {
            try {
                run.complete(engine.run());
            } catch (Throwable t) {
                run.completeExceptionally(t);
            }
        }, "engine-under-test");
        loop.setDaemon(true);
        loop.start();
        return engine;
    }

    /** @return what the loop's run returns, or how it failed */
    CompletableFuture<RunSummary> run() {
        return run;
    }

    /** @return every event so far, in order */
    List<SchedulerEvent> events() {
        return events;
    }

    /** @param each called on the loop's thread with each later event, before the loop goes on */
    void onEvent(Consumer<SchedulerEvent> each) {
        onEvent = each;
    }

    /** Stops a loop still running and waits up to 10 s for it to end. */
    void stop() throws Exception {
        if (engine != null && !run.isDone()) {
            engine.stop();
            run.get(10, TimeUnit.SECONDS);
        }
    }

    /** @return the first event of this type that matches, waiting up to 10 s for it */
    <T extends SchedulerEvent> T await(Class<T> type, Predicate<T> what) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            for (SchedulerEvent e : events) {
                if (type.isInstance(e) && what.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no " + type.getSimpleName() + " as expected; events besides boards: "
                + events.stream().filter(e -> !(e instanceof SchedulerEvent.StatusUpdated)).toList());
    }

    /** @return job {@code no}'s result, waiting up to 10 s for it to finish */
    JobResult finished(int no) throws InterruptedException {
        return await(SchedulerEvent.JobFinished.class, f -> f.result().no() == no).result();
    }
}
