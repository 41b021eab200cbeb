// A scheduling round with QUEUED jobs pending and nothing changed (issue #27: "a round with 100,000
// pending and nothing changed stays within 2 ms"). A benchmark, not a test.
// Run:  java $(bench/jvm_flags.sh) -cp gpusched-cli/target/gpusched.jar \
//           bench/round/IdleRound.java [QUEUED] [ROUNDS] [RUNS] [file|submit]
// (the flags are bin/gpusched's, which the daemon runs with; without them the JIT is C2's.)
// A scheduler in this JVM on one 24000 MiB GPU that its first job holds (declared 20G), so every other
// job waits: QUEUED jobs (default 100,000) are lines of its jobs file ("file", the default: queued in
// one parse), or are submitted through the API as the daemon's clients do ("submit": owner, directory
// and environment journaled with each; slower to queue); once the board shows them all, RUNS windows
// (default 5) of ROUNDS idle rounds each (default 40, at a 20 ms poll) are timed. The engine hands out
// the board at the end of every round, on its loop thread, so between two boards that thread did one
// round's work: its CPU time over the window, per round, is the round's cost, read with
// ThreadMXBean in the listener. Printed per window: the median, p90, mean and max of the per-round loop
// CPU (the mean and max show the status files' rewrite, which the board's clock in their head asks for
// once a second), and the median wall gap between boards minus the poll; then the median of the
// windows' medians.
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.SubmitContext;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

public class IdleRound {
    public static void main(String[] args) throws Exception {
        int queued = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        boolean submit = args.length > 3 && args[3].equals("submit");
        Duration poll = Duration.ofMillis(20);
        Path dir = Files.createTempDirectory("idleround");
        StringBuilder file = new StringBuilder("[vram=20G] sleep 3600\n");
        for (int i = 0; !submit && i < queued; i++) {
            file.append("[vram=20G] echo queued ").append(i).append('\n');
        }
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), file);
        GpuBackend one = new GpuBackend() {
            public GpuSnapshot snapshot() {
                return new GpuSnapshot(List.of(GpuStat.of(0, 24000, 0)), List.of());
            }

            public String describe() {
                return "one gpu";
            }

            public void close() {
            }
        };
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        List<long[]> boards = Collections.synchronizedList(new ArrayList<>()); // {wall ns, loop cpu ns}
        Scheduler s = Scheduler.builder().backend(one).jobsFile(jobs).logDir(dir.resolve("logs")).fresh(true)
                .options(SchedulerOptions.defaults().withWatch(true).withPoll(poll)
                        .withSampleInterval(Duration.ofSeconds(10)).withKillGrace(Duration.ofMillis(100)))
                .listener(e -> {
                    if (e instanceof SchedulerEvent.StatusUpdated) {
                        boards.add(new long[] {System.nanoTime(), threads.getCurrentThreadCpuTime()});
                    }
                }).build();
        CompletableFuture<?> run = CompletableFuture.runAsync(s::run);
        SubmitContext context = new SubmitContext(System.getProperty("user.name", "bench"), dir, Optional.of(Map.of(
                "PATH", "/usr/bin:/bin", "HOME", dir.toString(), "LANG", "C.UTF-8")), Optional.empty(), Optional.empty(),
                OptionalInt.empty());
        long t0 = System.nanoTime();
        List<CompletableFuture<Integer>> numbers = new ArrayList<>();
        for (int i = 0; submit && i < queued; i++) {
            numbers.add(s.submit(JobSpec.parse("[vram=20G] echo queued " + i), context).number());
            if (numbers.size() == 1000) { // keep the inbox from holding the whole flood at once
                numbers.forEach(CompletableFuture::join);
                numbers.clear();
            }
        }
        numbers.forEach(CompletableFuture::join);
        while (s.snapshot().map(q -> q.board().pending().size()).orElse(0) < queued) {
            Thread.sleep(50);
        }
        System.out.printf("queued %d in %.1f s%n", queued, (System.nanoTime() - t0) / 1e9);
        Thread.sleep(2000); // the rounds that follow the flood (journal compaction, the first full board)
        List<Double> medians = new ArrayList<>();
        for (int r = 1; r <= runs; r++) {
            int from = boards.size();
            while (boards.size() < from + rounds + 1) {
                Thread.sleep(poll.toMillis());
            }
            List<Double> cpu = new ArrayList<>();
            List<Double> wall = new ArrayList<>();
            for (int i = from; i < from + rounds; i++) {
                long[] a = boards.get(i);
                long[] b = boards.get(i + 1);
                cpu.add((b[1] - a[1]) / 1e6);
                wall.add((b[0] - a[0]) / 1e6 - poll.toMillis());
            }
            Collections.sort(cpu);
            Collections.sort(wall);
            double median = cpu.get(cpu.size() / 2);
            medians.add(median);
            System.out.printf("run %d: idle round loop cpu median_ms %.3f p90_ms %.3f mean_ms %.3f max_ms %.3f;"
                    + " wall gap minus poll median_ms %.3f%n", r, median, cpu.get(cpu.size() * 9 / 10),
                    cpu.stream().mapToDouble(Double::doubleValue).average().orElse(0), cpu.get(cpu.size() - 1),
                    wall.get(wall.size() / 2));
        }
        Collections.sort(medians);
        System.out.printf("idle_round_ms %.3f (median of %d runs of %d rounds, %d pending)%n", medians.get(medians.size() / 2),
                runs, rounds, s.snapshot().map(q -> q.board().pending().size()).orElse(0));
        s.close();
        run.join();
    }
}
