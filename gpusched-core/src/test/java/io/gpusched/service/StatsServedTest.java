package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.protocol.Request;
import io.gpusched.stats.Stats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stats} over the socket (PROTOCOL.md, "stats: figures from the journal"): the daemon reads its
 * journal on a thread of its own, one request at a time per user, and narrows the figures to what the
 * caller may see before its printer sees them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatsServedTest {
    @TempDir
    Path dir;

    private static final Request.Stats ALL = new Request.Stats(OptionalInt.empty(), Optional.empty(), OptionalDouble.empty(),
            false, Optional.empty());

    /** A printer that says whose figures it was given, and keeps them. */
    private static final class Capturing implements StatsPrinter {
        final AtomicReference<Stats> last = new AtomicReference<>();

        @Override
        public String print(Stats stats, Path journal, List<String> warnings, Request.Stats request) {
            last.set(stats);
            return "users " + stats.users().stream().map(Stats.UserFigures::user).toList() + " jobs " + stats.total().jobs()
                    + "\n";
        }
    }

    @Test
    void aCallerWhoIsNotAnAdmin_getsTheFiguresOfTheirOwnJobsAlone_andAnotherUsersIsForbiddenInCancelsWords() throws Exception {
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).build())) {
            Capturing printer = new Capturing();
            Requests requests = new Requests(running.scheduler(), true, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of(printer), Requests.TAKE_WITHIN);
            Request.Submit job = new Request.Submit("[vram=1G] echo secret-alpha", dir.toString(), Optional.empty(),
                    Optional.empty(), Optional.empty(), OptionalInt.empty());
            assertTrue(requests.answer(job, "alice").join().get(0).contains("\"ok\":true"));
            assertTrue(requests.answer(job, "alice").join().get(0).contains("\"ok\":true"));
            long aliceFirst = System.currentTimeMillis();
            Thread.sleep(1100);
            long bobsSubmission = System.currentTimeMillis();
            assertTrue(requests.answer(new Request.Submit("[vram=1G] echo b", dir.toString(), Optional.empty(),
                    Optional.empty(), Optional.empty(), OptionalInt.empty()), "bob").join().get(0).contains("\"ok\":true"));

            List<String> bobs = requests.answer(ALL, "bob").join();
            assertEquals(List.of("{\"v\":1,\"ok\":true,\"parts\":1,\"warnings\":[]}", "{\"v\":1,\"part\":\"users [bob] jobs 1\\n\"}"),
                    bobs);
            Stats seen = printer.last.get();
            assertEquals(Optional.of("bob"), seen.query().user(), "his query is narrowed to him");
            assertTrue(seen.fromMillis() >= bobsSubmission - 50, "his period starts at his own jobs' first time, not"
                    + " alice's (" + aliceFirst + "): " + seen.fromMillis());

            List<String> refused = requests.answer(new Request.Stats(OptionalInt.empty(), Optional.of("alice"),
                    OptionalDouble.empty(), true, Optional.empty()), "bob").join();
            assertEquals(List.of("{\"v\":1,\"ok\":false,\"error\":{\"code\":\"forbidden\",\"message\":\"only alice or an admin"
                    + " (root) may see alice's stats\"}}"), refused);

            assertEquals("{\"v\":1,\"part\":\"users [alice, bob] jobs 3\\n\"}", requests.answer(ALL, "root").join().get(1),
                    "root sees everyone's");
            assertEquals("{\"v\":1,\"part\":\"users [alice] jobs 2\\n\"}", requests.answer(new Request.Stats(OptionalInt.empty(),
                    Optional.of("alice"), OptionalDouble.empty(), false, Optional.empty()), "root").join().get(1));
            assertTrue(printer.last.get().fromMillis() <= aliceFirst, "an admin's period is the journal's");
        }
    }

    @Test
    void aFloodOfStatsRequestsFromOneUser_isAnsweredOneAtATime_andHoldsUpNoSubmitQueueCancelOrLogs() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger printing = new AtomicInteger();
        StatsPrinter slow = (stats, journal, warnings, request) -> {
            printing.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "figures\n";
        };
        List<SocketChannel> opened = new ArrayList<>();
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).build());
             ServiceServer server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"),
                     ServiceServer.Access.OWNER_ONLY, Optional.empty(), Optional.empty(), ServiceServer.Limits.DEFAULTS,
                     Optional.empty(), Optional.of(slow))) {
            // A journal to read: the daemon's, with a job in it.
            try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
                c.submit("[vram=1G] echo x", dir, Optional.empty());
            }
            List<BufferedReader> answers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()));
                opened.add(ch);
                answers.add(new BufferedReader(new InputStreamReader(Channels.newInputStream(ch), StandardCharsets.UTF_8)));
                write(ch, "{\"v\":1,\"op\":\"stats\"}");
            }
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); printing.get() == 0; Thread.sleep(5)) {
                assertTrue(System.nanoTime() < end, "no stats request reached the printer");
            }
            // Every other one is refused at once, in the stated words; the one being answered is not.
            java.util.concurrent.ExecutorService readers = java.util.concurrent.Executors.newFixedThreadPool(answers.size());
            List<CompletableFuture<String>> read = new ArrayList<>();
            for (BufferedReader r : answers) {
                read.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return r.readLine();
                    } catch (IOException e) {
                        return e.toString();
                    }
                }, readers));
            }
            // Meanwhile the same user's every other kind of request is answered as ever.
            long start = System.nanoTime();
            try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
                CompletableFuture.runAsync(() -> {
                    int no = c.submit("[vram=1G] echo y", dir, Optional.empty());
                    c.queueSummary();
                    c.logs(no);
                    c.cancel(no);
                }).get(5, TimeUnit.SECONDS);
            }
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                 read.stream().filter(CompletableFuture::isDone).count() < answers.size() - 1; Thread.sleep(10)) {
                assertTrue(System.nanoTime() < end, "the flood's other requests were not answered at once");
            }
            Thread.sleep(200);
            List<String> refused = read.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join).toList();
            assertEquals(1, printing.get(), "one stats request printed at a time: " + refused);
            assertEquals(answers.size() - 1, refused.size(), "the one being printed is not answered yet");
            assertTrue(refused.stream().allMatch(l -> l != null && l.contains("\"code\":\"failed\"")
                    && l.contains("one stats request at a time per user")), "refused at once, saying why: " + refused);
            CompletableFuture<String> beingPrinted = read.stream().filter(f -> !f.isDone()).findFirst().orElseThrow();
            release.countDown();
            // The one held is answered once printed, and the user's next one is taken again.
            String held = beingPrinted.get(10, TimeUnit.SECONDS);
            assertEquals("{\"v\":1,\"ok\":true,\"parts\":1,\"warnings\":[]}", held);
            readers.shutdownNow();
            try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
                assertEquals("figures\n", c.stats(ALL).text());
            }
        } finally {
            release.countDown();
            for (SocketChannel c : opened) {
                c.close();
            }
        }
    }

    private static void write(SocketChannel c, String line) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }
}
