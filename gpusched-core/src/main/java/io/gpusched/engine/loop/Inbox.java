package io.gpusched.engine.loop;

import io.gpusched.engine.spawn.RunningJob;

import io.gpusched.model.GpuschedException;
import io.gpusched.model.JobResult;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The loop's inbox: the only way other threads reach the scheduler. They post messages (a process
 * exited, a submission, work for the loop, stop); the loop takes them. Once the loop has ended the
 * inbox is closed, and what is posted then, or was still queued, is refused at once — no caller waits
 * for a loop that will never answer.
 */
public final class Inbox {
    /** Messages other threads post to the loop. */
    public sealed interface Message permits Exited, Submitted, Control, Stop, Forced {
    }

    /**
     * The fsync a group handed to the journal's own thread ({@link Durability#endGroupLater}) is done:
     * what waited for it (reports, run-file removals, numbers owed) can go now.
     *
     * @param flight which handed-over force it was
     */
    public record Forced(long flight) implements Message {
    }

    /**
     * A run's leader exited.
     *
     * @param exitCode its exit status; empty when it ended without one (a run taken up from a dead
     *     scheduler whose wrapper wrote none: killed before its command ended)
     */
    public record Exited(RunningJob job, java.util.OptionalInt exitCode) implements Message {
    }

    /**
     * A job submitted through the API; {@code accepted} gets its number once journaled. With
     * {@code lease}, the caller runs the command itself: the future gets the grant.
     */
    public record Submitted(JobSpec spec, SubmitContext context, CompletableFuture<JobResult> result,
                     CompletableFuture<Integer> accepted, java.util.Optional<CompletableFuture<io.gpusched.model.Grant>> lease)
            implements Message {
    }

    /** Work for the loop's thread (cancel, pause); {@code refused} fails it when the loop has ended. */
    public record Control(Runnable action, Consumer<GpuschedException> refused) implements Message {
    }

    /**
     * Stop and return: terminate running jobs, or, with {@code leaveJobs}, leave them running for the
     * next scheduler on this log directory to take up.
     */
    public record Stop(boolean leaveJobs) implements Message {
    }

    private final LinkedBlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    /** Posts from any thread; refused at once when the loop has ended. */
    public void post(Message m) {
        queue.add(m);
        if (closed && queue.remove(m)) {
            refuse(m);
        }
    }

    /**
     * Runs {@code action} on the loop's thread.
     *
     * @return its answer; fails with a {@link GpuschedException} if the loop has ended, or with what
     *     {@code action} threw
     */
    public <T> CompletableFuture<T> call(Supplier<T> action) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        post(new Control(() -> {
            try {
                answer.complete(action.get());
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        }, answer::completeExceptionally));
        return answer;
    }

    /**
     * Takes back a submission the loop has not taken yet: it is removed from the queue, so the loop never
     * sees it, and its futures fail. Atomic against the loop's taking it.
     *
     * @param accepted the submission's number, as posted in its {@link Submitted}
     * @return whether it was still queued and now never will be taken; false when the loop has it (its
     *     number or refusal comes as usual) or it was refused already
     */
    public boolean withdraw(CompletableFuture<Integer> accepted) {
        for (Message m : queue) {
            if (m instanceof Submitted s && s.accepted() == accepted) {
                if (!queue.remove(m)) {
                    return false; // the loop took it meanwhile
                }
                GpuschedException e = new GpuschedException("the submission of '" + s.spec().command()
                        + "' was taken back before the scheduler took it: it was not queued");
                s.accepted().completeExceptionally(e);
                s.result().completeExceptionally(e);
                return true;
            }
        }
        return false;
    }

    /** @return the next message, waiting at most {@code nanos}; null if none came */
    public Message take(long nanos) throws InterruptedException {
        return queue.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** @return the next message queued, or null */
    public Message poll() {
        return queue.poll();
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    /** From now on everything posted is refused; what is still queued is refused now. */
    public void close() {
        closed = true;
        for (Message m = queue.poll(); m != null; m = queue.poll()) {
            refuse(m);
        }
    }

    private static void refuse(Message m) {
        if (m instanceof Submitted s) {
            GpuschedException e = new GpuschedException("the scheduler has stopped; submission of '" + s.spec().command()
                    + "' not taken");
            s.accepted().completeExceptionally(e);
            s.result().completeExceptionally(e);
        } else if (m instanceof Control c) {
            c.refused().accept(new GpuschedException("the scheduler is not running"));
        }
    }
}
