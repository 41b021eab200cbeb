package io.gpusched.cli;

import io.gpusched.JobHandle;
import io.gpusched.model.JobStatus;
import io.gpusched.Scheduler;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An embedder for {@link SubmissionChaosTest}, in its own JVM so the test can SIGKILL it: runs a
 * {@code --watch} scheduler on two simulated GPUs and submits jobs {@code 0..N-1} that it has not had
 * acknowledged yet, appending each index to the ack file once {@code submit} returned. When every job
 * is acknowledged and every result it waits on is in, it prints {@code DRIVER DONE} and exits.
 *
 * <p>Arguments: log dir, ledger dir, ack file, N.
 */
public final class SubmitDriver {
    private SubmitDriver() {
    }

    /** A submission's command: the ledger's wrapper around a short sleep, named by the job's own number. */
    static String command(Path ledger, int index) {
        // Two fit on a simulated GPU at once: four run together, so kills land while jobs run and wait.
        return "[vram=10G] " + Ledger.wrap(ledger, "job$GPUSCHED_JOB_NO", "sleep 0." + (1 + index % 3)) + " # idx-" + index;
    }

    public static void main(String[] args) throws Exception {
        Path logs = Path.of(args[0]);
        Path ledger = Path.of(args[1]);
        Path acks = Path.of(args[2]);
        int n = Integer.parseInt(args[3]);
        Set<Integer> acked = new HashSet<>();
        if (Files.exists(acks)) {
            Files.readAllLines(acks).stream().filter(l -> !l.isBlank()).map(Integer::parseInt).forEach(acked::add);
        }
        SchedulerOptions options = SchedulerOptions.defaults().withWatch(true).withPoll(Duration.ofMillis(100))
                .withSampleInterval(Duration.ofMillis(50)).withKillGrace(Duration.ofMillis(500));
        try (GpuBackend gpus = GpuBackends.load("sim", BackendOptions.of("gpus", "2"))) {
            Scheduler s = Scheduler.builder().backend(gpus).options(options).logDir(logs).build();
            Thread loop = new Thread(s::run, "gpusched-loop");
            loop.start();
            while (s.snapshot().isEmpty()) {
                Thread.sleep(5); // the loop has started: submissions are acknowledged once journaled
            }
            List<JobHandle> mine = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (acked.contains(i)) {
                    continue;
                }
                mine.add(s.submit(JobSpec.parse(command(ledger, i))));
                Files.writeString(acks, i + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                Thread.sleep(15); // submissions keep arriving while the test's kills land
            }
            for (JobHandle h : mine) {
                if (h.result().get(120, TimeUnit.SECONDS).status() != JobStatus.OK) {
                    System.out.println("DRIVER FAILED " + h.result().get());
                }
            }
            // Submissions of earlier drivers that the journal rebuilt, and their orphans: wait until none is left.
            while (!s.snapshot().orElseThrow().board().running().isEmpty()
                    || !s.snapshot().orElseThrow().board().pending().isEmpty()
                    || !s.snapshot().orElseThrow().orphans().isEmpty()) {
                Thread.sleep(20);
            }
            s.close();
            loop.join(30_000);
        }
        System.out.println("DRIVER DONE");
    }
}
