package io.gpusched.bench;

import io.gpusched.Scheduler;
import io.gpusched.SchedulerEvent;
import io.gpusched.SchedulerOptions;
import io.gpusched.testkit.sim.SimulatedGpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Times scheduling rounds in-process on a sim GPU with a jobs file of one running head job and
 * N lines blocked behind it. The engine emits {@code StatusUpdated} at the end of each round and
 * starts the next one a poll later, so (interval between ends − poll) is the round's own time.
 * Prints {@code first_round_ms} (start → end of the first round, which journals N {@code seen}
 * events) and {@code steady_round_ms} (median of the rounds after warm-up, nothing changed).
 */
public final class RoundTimer {
    private RoundTimer() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        Path dir = Files.createTempDirectory("gpusched-rounds");
        Path jobs = dir.resolve("jobs.txt");
        StringBuilder sb = new StringBuilder("[vram=20G] sleep 600\n");
        for (int i = 0; i < n; i++) {
            sb.append("[vram=20G] echo blocked ").append(i).append('\n');
        }
        Files.writeString(jobs, sb);
        Duration poll = Duration.ofMillis(50);
        List<Long> ends = Collections.synchronizedList(new ArrayList<>());
        long[] started = new long[1];
        Scheduler[] holder = new Scheduler[1];
        try (SimulatedGpuBackend backend = new SimulatedGpuBackend(1)) {
            Scheduler s = Scheduler.builder().backend(backend).jobsFile(jobs).logDir(dir.resolve("logs")).fresh(true)
                    .options(SchedulerOptions.defaults().withPoll(poll).withSampleInterval(Duration.ofSeconds(10)))
                    .listener(e -> {
                        if (e instanceof SchedulerEvent.RunStarted) {
                            started[0] = System.nanoTime();
                        } else if (e instanceof SchedulerEvent.StatusUpdated) {
                            ends.add(System.nanoTime());
                            if (ends.size() == rounds + 1) {
                                new Thread(holder[0]::close).start();
                            }
                        }
                    }).build();
            holder[0] = s;
            s.run();
        }
        System.out.printf("first_round_ms %.3f%n", (ends.get(0) - started[0]) / 1e6);
        List<Double> steady = new ArrayList<>();
        for (int i = Math.min(10, rounds / 2); i < ends.size() - 1; i++) {
            steady.add((ends.get(i + 1) - ends.get(i)) / 1e6 - poll.toMillis());
        }
        Collections.sort(steady);
        System.out.printf("steady_round_ms %.3f%n", steady.get(steady.size() / 2));
        System.out.printf("steady_round_min_ms %.3f%n", steady.get(0));
    }
}
