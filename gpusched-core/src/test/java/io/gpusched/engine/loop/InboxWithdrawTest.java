package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.SubmitContext;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A submission taken back is never seen by the loop; one the loop took cannot be taken back. */
class InboxWithdrawTest {
    private static Inbox.Submitted submission(String command) {
        return new Inbox.Submitted(JobSpec.parse("[vram=1G] " + command), new SubmitContext("ada", Path.of("/"),
                Optional.of(Map.of()), Optional.empty(), Optional.empty(), java.util.OptionalInt.empty()),
                new CompletableFuture<JobResult>(), new CompletableFuture<>(), Optional.empty());
    }

    @Test
    void aSubmissionNotYetTakenIsTakenBack_itsFuturesFail_andTheLoopNeverSeesIt() throws Exception {
        Inbox inbox = new Inbox();
        Inbox.Submitted first = submission("first");
        Inbox.Submitted second = submission("second");
        inbox.post(first);
        inbox.post(second);

        assertTrue(inbox.withdraw(first.accepted()));

        assertTrue(first.accepted().isCompletedExceptionally() && first.result().isCompletedExceptionally());
        assertSame(second, inbox.poll(), "the loop's next message is the one not taken back");
        assertNull(inbox.poll());
    }

    @Test
    void aSubmissionTheLoopTookCannotBeTakenBack_norOneAnsweredAlready() {
        Inbox inbox = new Inbox();
        Inbox.Submitted taken = submission("taken");
        inbox.post(taken);
        assertSame(taken, inbox.poll());

        assertFalse(inbox.withdraw(taken.accepted()));
        assertFalse(taken.accepted().isDone(), "its number is still the loop's to give");
        assertFalse(inbox.withdraw(new CompletableFuture<>()), "a future no submission has");
    }
}
