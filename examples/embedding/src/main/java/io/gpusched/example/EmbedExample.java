package io.gpusched.example;

import io.gpusched.JobHandle;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Runs gpusched inside another program: two simulated GPUs, jobs submitted from this thread while the
 * scheduler's loop runs on its own thread, a listener counting events, and a wait on a job's future.
 * Prints {@code EXAMPLE OK ...} and exits 0 when everything happened as expected.
 */
public final class EmbedExample {
    private EmbedExample() {
    }

    public static void main(String[] args) throws Exception {
        Path logDir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("gpusched-example");
        List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

        // "sim" is found by ServiceLoader in gpusched-testkit, on the class path or the module path.
        try (GpuBackend backend = GpuBackends.load("sim", BackendOptions.of("gpus", "2"))) {
            Scheduler scheduler = Scheduler.builder()
                    .backend(backend)
                    .options(SchedulerOptions.defaults().withPoll(Duration.ofMillis(200)).withWatch(true))
                    .logDir(logDir)
                    .fresh(true)
                    .listener(events::add)
                    .listener(e -> {
                        if (e instanceof SchedulerEvent.JobFinished f) {
                            System.out.println("finished: job " + f.result().no() + " " + f.result().status()
                                    + " peak " + f.result().overallPeakMib() + " MiB");
                        }
                    })
                    .build();
            Thread loop = new Thread(scheduler::run, "gpusched-loop");
            loop.start();

            // submit from this thread while the loop runs on its own
            JobHandle small = scheduler.submit(JobSpec.parse("[vram=4G] $GPUSCHED_SIMJOB --vram 3000 --ramp 0.2 --hold 0.3"));
            JobHandle big = scheduler.submit(JobSpec.parse("[vram=12G] $GPUSCHED_SIMJOB --vram 11000 --ramp 0.2 --hold 0.3"));

            JobResult r1 = small.result().get(60, TimeUnit.SECONDS);
            JobResult r2 = big.result().get(60, TimeUnit.SECONDS);
            scheduler.close(); // from this thread: the loop stops and run() returns
            loop.join(TimeUnit.SECONDS.toMillis(30));

            RunSummary summary = events.stream().filter(SchedulerEvent.RunFinished.class::isInstance)
                    .map(e -> ((SchedulerEvent.RunFinished) e).summary()).findFirst().orElseThrow();
            boolean ok = r1.status() == JobStatus.OK && r2.status() == JobStatus.OK
                    && r2.overallPeakMib() >= 11000 && summary.results().size() == 2 && !loop.isAlive();
            System.out.println((ok ? "EXAMPLE OK" : "EXAMPLE FAILED") + ": " + events.size() + " events, results "
                    + r1.status() + "/" + r2.status() + ", module " + EmbedExample.class.getModule().getName());
            if (!ok) {
                System.exit(1);
            }
        }
    }
}
