// What unique costs a submission (issue #26, item 2): the engine's submit path with and without serve --dedup,
// with QUEUED (default 100,000) submissions already queued behind a job that holds the only GPU.
// Run:  java -cp gpusched-cli/target/gpusched.jar bench/service/DedupBench.java dedup|plain [QUEUED] [ROUND_TRIPS]
// Prints: the time to queue QUEUED distinct submissions from 16 threads; the median and p99 of ROUND_TRIPS
// (default 1000) sequential distinct submissions (each answered once journaled and forced); with dedup, the
// same for ROUND_TRIPS submissions of a job already queued (answered from the index, nothing journaled).
// Through the API, not the socket, so the figures are the engine's. Run A and B alternately, several times.
import io.gpusched.Scheduler;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.DuplicateJobException;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class DedupBench {
    public static void main(String[] args) throws Exception {
        boolean dedup = args[0].equals("dedup");
        int queued = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int trips = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        Path dir = Files.createTempDirectory("dedupbench");
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=20G] sleep 3600\n");
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
        Scheduler s = Scheduler.builder().backend(one).jobsFile(jobs).logDir(dir.resolve("logs")).dedup(dedup)
                .options(SchedulerOptions.defaults().withWatch(true).withKillGrace(Duration.ofMillis(100))).build();
        CompletableFuture<?> run = CompletableFuture.runAsync(s::run);
        while (s.snapshot().isEmpty()) {
            Thread.sleep(20);
        }
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> done = new ArrayList<>();
        for (int k = 0; k < 16; k++) {
            int client = k;
            done.add(pool.submit(() -> {
                for (int i = client; i < queued; i += 16) {
                    s.submit(JobSpec.parse("[vram=20G] echo queued " + i));
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        long fill = System.nanoTime() - t0;
        pool.shutdown();
        long[] rt = new long[trips];
        for (int i = 0; i < trips; i++) {
            long a = System.nanoTime();
            s.submit(JobSpec.parse("[vram=20G] echo submitted " + i));
            rt[i] = System.nanoTime() - a;
        }
        Arrays.sort(rt);
        System.out.printf("%s: queued %d in %.2f s; distinct submit median %.3f ms, p99 %.3f ms (%d sequential)%n",
                dedup ? "dedup" : "plain", queued, fill / 1e9, rt[trips / 2] / 1e6, rt[(int) (trips * 0.99)] / 1e6, trips);
        if (dedup) {
            long[] dup = new long[trips];
            for (int i = 0; i < trips; i++) {
                long a = System.nanoTime();
                try {
                    s.submit(JobSpec.parse("[vram=20G] echo queued " + (i * 97 % queued)));
                    throw new IllegalStateException("a duplicate was queued");
                } catch (DuplicateJobException expected) {
                    dup[i] = System.nanoTime() - a;
                }
            }
            Arrays.sort(dup);
            System.out.printf("dedup: duplicate submit median %.3f ms, p99 %.3f ms (%d sequential)%n",
                    dup[trips / 2] / 1e6, dup[(int) (trips * 0.99)] / 1e6, trips);
        }
        s.close();
        run.get();
    }
}
