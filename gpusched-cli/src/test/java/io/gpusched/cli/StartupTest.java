package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --version} and {@code --help} must stay cheap (issue #5's start-up row): they load no GPU
 * backend, no JNA and no Jackson. Checked with the JVM's own class-loading log, in a JVM of its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartupTest {
    private static final List<String> HEAVY = List.of("com.sun.jna.", "com.fasterxml.jackson.", "io.gpusched.nvml.",
            "io.gpusched.testkit.", "io.gpusched.engine.", "io.gpusched.journal.");

    @Test
    void versionLoadsNoBackendNoJnaAndNoJackson() throws Exception {
        assertLight("--version", "gpusched ");
    }

    @Test
    void helpLoadsNoBackendNoJnaAndNoJackson() throws Exception {
        assertLight("--help", "--sim");
    }

    @Test
    void versionAndHelpVerbsLoadNoBackendNoJnaAndNoJackson() throws Exception {
        assertLight("version", "gpusched ");
        assertLight("help", "--sim");
    }

    @Test
    void aJobsFileRunLoadsNoPicocli(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path jobs = java.nio.file.Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] true\n");
        Process p = new ProcessBuilder("java", "-Xlog:class+load=info", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), jobs.toString(), "--sim", "1", "--poll", "0.05", "--log-dir",
                dir.resolve("logs").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("all 1 jobs done"), out);
        assertTrue(out.contains("io.gpusched.cli.CliArgs "), "the class-load log is there: " + out.length() + " chars");
        List<String> picocli = out.lines().filter(l -> l.contains("[class,load] picocli.")).toList();
        assertEquals(List.of(), picocli, "a plain run's command line is read from the option tables");
    }

    private static void assertLight(String arg, String expectedOutput) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("java", "-Xlog:class+load=info", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), arg).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(expectedOutput), out);
        assertTrue(out.contains("io.gpusched.cli.Main"), "the class-load log is there: " + out.length() + " chars");
        List<String> heavy = out.lines().filter(l -> l.contains("[class,load]"))
                .filter(l -> HEAVY.stream().anyMatch(h -> l.contains(" " + h))).toList();
        assertEquals(List.of(), heavy, arg + " loaded classes it does not need");
    }
}
