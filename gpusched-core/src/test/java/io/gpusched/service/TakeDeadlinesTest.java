package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One timer for every submission's wait for its number: those answered in time never fail, the others do, once. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TakeDeadlinesTest {
    @Test
    void waitsNotAnsweredInTimeFail_answeredOnesKeepTheirNumber_andTheOriginalIsUntouched() throws Exception {
        TakeDeadlines deadlines = new TakeDeadlines(Duration.ofMillis(200));
        List<CompletableFuture<Integer>> originals = new ArrayList<>();
        List<CompletableFuture<Integer>> copies = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            CompletableFuture<Integer> n = new CompletableFuture<>();
            originals.add(n);
            copies.add(deadlines.within(n));
            if (i % 2 == 0) {
                n.complete(i); // answered at once: leaves the queue as the next come
            }
        }
        for (int i = 0; i < 50; i++) {
            int no = i;
            if (i % 2 == 0) {
                assertEquals(i, copies.get(i).get(5, TimeUnit.SECONDS));
            } else {
                ExecutionException e = assertThrows(ExecutionException.class, () -> copies.get(no).get(5, TimeUnit.SECONDS));
                assertInstanceOf(TimeoutException.class, e.getCause());
                assertFalse(originals.get(i).isDone(), "the original is never failed by the wait");
            }
        }
        // Armed again for waits that begin after the last one ended.
        CompletableFuture<Integer> late = new CompletableFuture<>();
        CompletableFuture<Integer> lateCopy = deadlines.within(late);
        ExecutionException e = assertThrows(ExecutionException.class, () -> lateCopy.get(5, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause());
        CompletableFuture<Integer> done = CompletableFuture.completedFuture(7);
        assertTrue(deadlines.within(done).isDone());
    }
}
