// Submit round trips to a gpusched service over its UNIX socket (issue #14's benchmark rows).
// Run:  java -cp gpusched-cli/target/gpusched.jar bench/service/SubmitBench.java [QUEUED] [ROUND_TRIPS]
// A scheduler on one simulated 24000 MiB GPU whose memory a running job holds, so every job waits:
// QUEUED jobs (default 10,000) are queued from a jobs file first; then one client makes ROUND_TRIPS
// (default 1000) submissions one after another (median and p99 of each round trip, which includes the
// journal's fsync); then 10 clients make 100 submissions each at once (wall time for all 1000).
// Optional, off by default (the A/B rows use neither): -Dsb.settle=MS waits MS after the queue is loaded and
// before the first round trip (what the JIT still compiles from the load then runs beside the trips, not in
// them); -Dsb.block=K also prints the median of each K round trips in order (how the first trips of a young
// JVM compare with later ones).
import io.gpusched.Scheduler;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class SubmitBench {
    public static void main(String[] args) throws Exception {
        int queued = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int trips = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path dir = Files.createTempDirectory("submitbench");
        StringBuilder file = new StringBuilder("[vram=20G] sleep 3600\n");
        for (int i = 0; i < queued; i++) {
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
        Scheduler s = Scheduler.builder().backend(one).jobsFile(jobs).logDir(dir.resolve("logs"))
                .options(SchedulerOptions.defaults().withWatch(true).withKillGrace(Duration.ofMillis(100))).build();
        CompletableFuture<?> run = CompletableFuture.runAsync(s::run);
        while (s.snapshot().map(q -> q.board().pending().size()).orElse(0) < queued) {
            Thread.sleep(50);
        }
        Thread.sleep(Long.getLong("sb.settle", 0));
        try (ServiceServer server = ServiceServer.start(s, dir.resolve("s.sock"))) {
            long[] rt = new long[trips];
            try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
                for (int i = 0; i < trips; i++) {
                    long t0 = System.nanoTime();
                    c.submit("[vram=20G] echo submitted " + i, dir, Optional.empty());
                    rt[i] = System.nanoTime() - t0;
                }
            }
            int block = Integer.getInteger("sb.block", 0);
            for (int b = 0; block > 0 && b + block <= trips; b += block) {
                long[] part = Arrays.copyOfRange(rt, b, b + block);
                Arrays.sort(part);
                System.out.printf("round trips %d-%d: median %.2f ms%n", b + 1, b + block, part[block / 2] / 1e6);
            }
            Arrays.sort(rt);
            long t0 = System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(10);
            List<Future<?>> done = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                int client = k;
                done.add(pool.submit(() -> {
                    try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
                        for (int i = 0; i < 100; i++) {
                            c.submit("[vram=20G] echo client " + client + " " + i, dir, Optional.empty());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            long wall = System.nanoTime() - t0;
            pool.shutdown();
            System.out.printf("queued %d; submit round trip median %.2f ms, p99 %.2f ms (%d sequential)%n", queued,
                    rt[trips / 2] / 1e6, rt[(int) (trips * 0.99)] / 1e6, trips);
            System.out.printf("1000 submissions from 10 clients at once: %.2f s (%.2f ms each)%n", wall / 1e9, wall / 1e6 / 1000);
        }
        s.close();
        run.get();
    }
}
