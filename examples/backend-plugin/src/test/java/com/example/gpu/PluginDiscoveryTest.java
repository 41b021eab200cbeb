package com.example.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gpusched finds this plugin with no change to gpusched: through GpuBackends, and from the CLI. */
class PluginDiscoveryTest {
    @TempDir
    Path tmp;

    @Test
    void gpuBackendsFindsItByName() {
        assertTrue(GpuBackends.providers().stream().anyMatch(p -> p.name().equals("fixed")));
        try (GpuBackend b = GpuBackends.load("fixed", BackendOptions.of("gpus", "3"))) {
            assertEquals(3, b.snapshot().gpus().size());
        }
    }

    @Test
    void theCliSelectsItWithBackendName() throws Exception {
        // gpusched-cli and its dependencies plus this plugin's classes: what "-cp gpusched.jar:plugin.jar" gives.
        // (.ci/run does the same with the bundled jar: GPUSCHED_CLASSPATH=target/...jar bin/gpusched ... --backend fixed)
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> !p.endsWith("test-classes")).collect(java.util.stream.Collectors.joining(File.pathSeparator));
        Path jobs = tmp.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] echo hello from a plugin backend\n");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, "io.gpusched.cli.Main",
                jobs.toString(), "--backend", "fixed", "--poll", "0.2", "--log-dir", tmp.resolve("logs").toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("backend: fixed (2 GPUs x 16000 MiB"), out);
        assertTrue(out.contains("all 1 jobs done"), out);
    }
}
