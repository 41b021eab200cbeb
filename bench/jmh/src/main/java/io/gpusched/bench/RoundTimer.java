package io.gpusched.bench;

import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
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
 *
 * <p>A wall interval minus the poll cannot resolve less than the sleep's overshoot on a noisy VM,
 * so the same window is also measured in CPU time: {@code steady_round_loop_cpu_ms} is the event
 * loop thread's CPU per round (the round's own work, read in the listener, which runs on that
 * thread), and {@code steady_round_process_cpu_ms} the whole JVM's CPU per round (adds the backend
 * worker, GC and JIT threads; an upper bound). The CPU figures are means, so a round that is slow
 * once a second shows in them where the median hides it; {@code -Dbench.eachRound=true} prints
 * every round's wall and loop CPU. A third argument {@code append} appends one more blocked line at
 * the end of each round, so every round takes a grown file (the incremental parse's case).
 */
public final class RoundTimer {
    private RoundTimer() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        // "append": each round ends with one more blocked line appended, as a sweep script would add them
        boolean append = args.length > 2 && args[2].equals("append");
        Path dir = Files.createTempDirectory("gpusched-rounds");
        Path jobs = dir.resolve("jobs.txt");
        StringBuilder sb = new StringBuilder("[vram=20G] sleep 600\n");
        for (int i = 0; i < n; i++) {
            sb.append("[vram=20G] echo blocked ").append(i).append('\n');
        }
        Files.writeString(jobs, sb);
        Duration poll = Duration.ofMillis(50);
        List<Long> ends = Collections.synchronizedList(new ArrayList<>());
        List<Long> loopCpu = Collections.synchronizedList(new ArrayList<>());
        List<Long> processCpu = Collections.synchronizedList(new ArrayList<>());
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long[] started = new long[1];
        Scheduler[] holder = new Scheduler[1];
        try (SimulatedGpuBackend backend = new SimulatedGpuBackend(1)) {
            Scheduler s = Scheduler.builder().backend(backend).jobsFile(jobs).logDir(dir.resolve("logs")).fresh(true)
                    .options(SchedulerOptions.defaults().withPoll(poll).withSampleInterval(Duration.ofSeconds(10)))
                    .listener(e -> {
                        if (e instanceof SchedulerEvent.RunStarted) {
                            started[0] = System.nanoTime();
                        } else if (e instanceof SchedulerEvent.StatusUpdated) {
                            if (append) {
                                try {
                                    Files.writeString(jobs, "[vram=20G] echo appended " + ends.size() + "\n",
                                            java.nio.file.StandardOpenOption.APPEND);
                                } catch (java.io.IOException ex) {
                                    throw new java.io.UncheckedIOException(ex);
                                }
                            }
                            ends.add(System.nanoTime());
                            loopCpu.add(threads.getCurrentThreadCpuTime());
                            processCpu.add(os.getProcessCpuTime());
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
        int from = Math.min(10, rounds / 2);
        if (Boolean.getBoolean("bench.eachRound")) {
            for (int i = 1; i < ends.size(); i++) {
                System.out.printf("round %d wall_ms %.3f loop_cpu_ms %.3f%n", i,
                        (ends.get(i) - ends.get(i - 1)) / 1e6 - poll.toMillis(), (loopCpu.get(i) - loopCpu.get(i - 1)) / 1e6);
            }
        }
        int to = ends.size() - 1;
        System.out.printf("steady_round_loop_cpu_ms %.3f%n", (loopCpu.get(to) - loopCpu.get(from)) / 1e6 / (to - from));
        System.out.printf("steady_round_process_cpu_ms %.3f%n",
                (processCpu.get(to) - processCpu.get(from)) / 1e6 / (to - from));
    }
}
