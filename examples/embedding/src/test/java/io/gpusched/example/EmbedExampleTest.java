package io.gpusched.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts the example in a fresh JVM twice: on the class path, and as named modules on the module path. */
class EmbedExampleTest {
    @TempDir
    Path tmp;

    /** The example's classes and the runtime jars it needs (gpusched core, testkit, jackson-core). */
    private static String runtimePath() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> p.endsWith("classes") && !p.endsWith("test-classes")
                        || p.contains("gpusched-core") || p.contains("gpusched-testkit") || p.contains("jackson-core"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    @Test
    void runsOnTheClassPath() throws Exception {
        String out = java(tmp.resolve("cp"), "-cp", runtimePath(), "io.gpusched.example.EmbedExample");
        assertTrue(out.contains("EXAMPLE OK"), out);
        assertTrue(out.contains("module null"), out); // unnamed module
    }

    @Test
    void runsOnTheModulePath() throws Exception {
        String out = java(tmp.resolve("mp"), "-p", runtimePath(), "-m", "io.gpusched.example/io.gpusched.example.EmbedExample");
        assertTrue(out.contains("EXAMPLE OK"), out);
        assertTrue(out.contains("module io.gpusched.example"), out);
    }

    private static String java(Path logDir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(List.of(args));
        cmd.add(logDir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
