package io.gpusched.dashboard;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;

/**
 * The standard {@code process_*} metrics every Prometheus client library exports for its own process,
 * with their standard names and units, read at each scrape: when the daemon started, its CPU time, its
 * resident and virtual memory, and its open and maximum file descriptors. A figure this JVM or system
 * cannot give (not Linux, no {@code /proc}) is left out rather than shown as 0.
 */
final class ProcessMetrics {
    private ProcessMetrics() {
    }

    /**
     * One reading of this process.
     *
     * @param startSeconds when it started, Unix seconds
     * @param cpuSeconds user and system CPU time it used, seconds
     * @param residentBytes resident memory, bytes
     * @param virtualBytes virtual memory, bytes
     * @param openFds open file descriptors
     * @param maxFds the soft limit on them
     */
    record Reading(OptionalDouble startSeconds, OptionalDouble cpuSeconds, OptionalDouble residentBytes,
                   OptionalDouble virtualBytes, OptionalDouble openFds, OptionalDouble maxFds) {
    }

    /** @return this process now; never throws */
    static Reading read() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        OptionalDouble start = info.startInstant().map(i -> OptionalDouble.of(i.toEpochMilli() / 1000.0))
                .orElse(OptionalDouble.empty());
        OptionalDouble cpu = info.totalCpuDuration().map(d -> OptionalDouble.of(d.toNanos() / 1e9))
                .orElse(OptionalDouble.empty());
        OptionalDouble open = OptionalDouble.empty();
        OptionalDouble max = OptionalDouble.empty();
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            // The bean counts /proc/self/fd and reads RLIMIT_NOFILE: what node_exporter and the Go and
            // Java clients report as process_open_fds and process_max_fds.
            open = nonNegative(os.getOpenFileDescriptorCount());
            max = nonNegative(os.getMaxFileDescriptorCount());
            if (cpu.isEmpty()) {
                cpu = nonNegative(os.getProcessCpuTime()).stream().map(n -> n / 1e9).findFirst();
            }
        }
        return new Reading(start, cpu, statusKib("VmRSS"), statusKib("VmSize"), open, max);
    }

    /** The process metrics in Prometheus text. */
    static String render(Reading r) {
        PrometheusText t = new PrometheusText();
        one(t, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.",
                r.startSeconds());
        one(t, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent, in seconds.",
                r.cpuSeconds());
        one(t, "process_resident_memory_bytes", "gauge", "Resident memory size, in bytes.", r.residentBytes());
        one(t, "process_virtual_memory_bytes", "gauge", "Virtual memory size, in bytes.", r.virtualBytes());
        one(t, "process_open_fds", "gauge", "Number of open file descriptors.", r.openFds());
        one(t, "process_max_fds", "gauge", "Maximum number of open file descriptors (the soft limit).", r.maxFds());
        return t.toString();
    }

    private static void one(PrometheusText t, String name, String type, String help, OptionalDouble v) {
        if (v.isEmpty()) {
            return;
        }
        List<PrometheusText.Sample> s = List.of(PrometheusText.Sample.of(v.getAsDouble()));
        if (type.equals("counter")) {
            t.counter(name, help, s);
        } else {
            t.gauge(name, help, s);
        }
    }

    private static OptionalDouble nonNegative(long v) {
        return v < 0 ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    /** A {@code kB} line of {@code /proc/self/status} (the kernel's kB are KiB), in bytes. */
    private static OptionalDouble statusKib(String key) {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            Optional<String> line = lines.filter(l -> l.startsWith(key + ":")).findFirst();
            if (line.isEmpty()) {
                return OptionalDouble.empty();
            }
            String[] f = line.get().substring(key.length() + 1).strip().split("\\s+");
            return OptionalDouble.of(Long.parseLong(f[0]) * 1024.0);
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }
}
