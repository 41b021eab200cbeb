package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process metrics, read from this very JVM: its figures must be this process's, in base units. */
class ProcessMetricsTest {
    @Test
    void theStartTimeIsThisJvmsInUnixSeconds_andCpuAndMemoryAreItsOwn() {
        ProcessMetrics.Reading r = ProcessMetrics.read();
        double now = System.currentTimeMillis() / 1000.0;
        double uptime = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
        double start = r.startSeconds().orElseThrow();
        // /proc gives the start in clock ticks: within a couple of seconds of the JVM's own idea of it.
        assertTrue(Math.abs(start - (now - uptime)) < 2.0, "start " + start + " vs now " + now + " − uptime " + uptime);
        assertTrue(r.cpuSeconds().orElseThrow() > 0.05, "a JVM that ran tests used CPU: " + r.cpuSeconds());
        double rss = r.residentBytes().orElseThrow();
        Runtime rt = Runtime.getRuntime();
        // At least the heap it has in use (bytes, not KiB), and less than the machine's memory.
        assertTrue(rss > 16 * 1024 * 1024 && rss >= (rt.totalMemory() - rt.freeMemory()) / 4, "rss " + rss);
        assertTrue(r.virtualBytes().orElseThrow() >= rss, "virtual " + r.virtualBytes() + " rss " + rss);
    }

    @Test
    void openFdsCountsFilesThisProcessOpens_belowItsLimit(@TempDir Path dir) throws IOException {
        double before = ProcessMetrics.read().openFds().orElseThrow();
        List<InputStream> open = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                Path f = Files.writeString(dir.resolve("f" + i), "x");
                open.add(Files.newInputStream(f));
            }
            ProcessMetrics.Reading r = ProcessMetrics.read();
            assertTrue(r.openFds().orElseThrow() >= before + 20, before + " then " + r.openFds());
            assertTrue(r.openFds().orElseThrow() <= r.maxFds().orElseThrow(), r.toString());
        } finally {
            for (InputStream in : open) {
                in.close();
            }
        }
    }

    @Test
    void theTextUsesThePrometheusClientsStandardNamesAndTypes() {
        String text = ProcessMetrics.render(ProcessMetrics.read());
        for (String line : List.of("# TYPE process_start_time_seconds gauge", "# TYPE process_cpu_seconds_total counter",
                "# TYPE process_resident_memory_bytes gauge", "# TYPE process_virtual_memory_bytes gauge",
                "# TYPE process_open_fds gauge", "# TYPE process_max_fds gauge")) {
            assertTrue(text.contains(line + "\n"), line + " in\n" + text);
        }
    }

    @Test
    void aFigureTheSystemCannotGiveIsLeftOut_notShownAsZero() {
        var none = java.util.OptionalDouble.empty();
        String text = ProcessMetrics.render(new ProcessMetrics.Reading(java.util.OptionalDouble.of(1.7e9), none, none, none,
                none, none));
        assertTrue(text.equals("# HELP process_start_time_seconds Start time of the process since the Unix epoch, in seconds.\n"
                + "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1700000000\n"), text);
    }
}
