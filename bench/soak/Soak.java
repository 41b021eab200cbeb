import io.gpusched.JobHandle;
import io.gpusched.model.JobStatus;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

/**
 * Soak: N trivial jobs through one --watch scheduler on two simulated GPUs, submitted through the API
 * (at most 64 outstanding), with the process's RSS and the heap in use after a full GC sampled every
 * N/20 jobs, and the journal's compactions listed. Run from the repository root after a build:
 *
 *   java -Xmx256m -cp gpusched-cli/target/gpusched.jar bench/soak/Soak.java 100000 8
 *
 * (arguments: jobs, journal compaction threshold in MiB). Prints one line per sample.
 */
public class Soak {
    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        long compactMib = args.length > 1 ? Long.parseLong(args[1]) : 8;
        Path logs = Files.createTempDirectory("gpusched-soak");
        SchedulerOptions options = SchedulerOptions.defaults().withWatch(true).withCompactAfterBytes(compactMib << 20);
        long started = System.nanoTime();
        try (GpuBackend gpus = GpuBackends.load("sim", BackendOptions.of("gpus", "2"))) {
            Scheduler s = Scheduler.builder().backend(gpus).options(options).logDir(logs)
                    .listener(e -> {
                        if (e instanceof SchedulerEvent.JournalCompacted c) {
                            System.out.printf("compacted journal: %.1f -> %.1f MiB%n", c.bytesBefore() / 1048576.0,
                                    c.bytesAfter() / 1048576.0);
                        }
                    }).build();
            Thread loop = new Thread(s::run, "gpusched-loop");
            loop.start();
            System.out.printf("%8s %8s %10s %14s %12s%n", "jobs", "wall s", "RSS MiB", "heap-after-GC", "journal MiB");
            Deque<JobHandle> outstanding = new ArrayDeque<>();
            int every = Math.max(1, jobs / 20);
            for (int i = 1; i <= jobs; i++) {
                outstanding.add(s.submit(JobSpec.parse("[vram=1] true")));
                if (outstanding.size() >= 64) {
                    await(outstanding.poll());
                }
                if (i % every == 0) {
                    while (!outstanding.isEmpty()) {
                        await(outstanding.poll());
                    }
                    sample(i, started, logs);
                }
            }
            s.close();
            loop.join(TimeUnit.SECONDS.toMillis(60));
        }
        System.out.println("log dir: " + logs);
    }

    private static void await(JobHandle h) throws Exception {
        if (h.result().get(120, TimeUnit.SECONDS).status() != JobStatus.OK) {
            throw new IllegalStateException("a trivial job failed: " + h.result().get());
        }
    }

    private static void sample(int done, long started, Path logs) throws Exception {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long heap = rt.totalMemory() - rt.freeMemory();
        long rssKib = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(0L);
        System.out.printf("%8d %8.1f %10.1f %14.1f %12.2f%n", done, Duration.ofNanos(System.nanoTime() - started).toMillis() / 1000.0,
                rssKib / 1024.0, heap / 1048576.0, Files.size(logs.resolve("journal.jsonl")) / 1048576.0);
        System.out.flush();
    }
}
