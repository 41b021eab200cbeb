package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real daemon started with --config: the file's options apply, and the command line's win. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeConfigEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void theDaemonTakesItsGpusFromTheFile_andACommandLineSizeOverridesTheFilesSize() throws Exception {
        Path conf = dir.resolve("gpusched.conf");
        Files.writeString(conf, String.join("\n",
                "# two small simulated GPUs, polled fast",
                "sim = 2",
                "sim-mib = 1000,2000   # MiB",
                "poll = 0.1",
                ""));
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-r--r--"));
        try (ServeDaemon daemon = new ServeDaemon(dir, "--config", conf.toString(), "--sim-mib", "3000,4000").start()) {
            ServeDaemon.Result info = daemon.verb("info");
            assertEquals(0, info.code(), info.err());
            assertTrue(info.out().contains("3000") && info.out().contains("4000"), info.out());
            assertTrue(!info.out().contains("1000 MiB") && !info.out().contains("2000 MiB"), info.out());
        }
    }

    @Test
    void aBadKeyStopsTheDaemonBeforeItListens_withFileLineAndASuggestion() throws Exception {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "sim = 1\nexclusve\n");
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-------"));
        ServeDaemon.Result r = ServeDaemon.cli("serve", "--config", conf.toString(), "--socket",
                dir.resolve("run/s.sock").toString(), "--log-dir", dir.resolve("logs").toString());
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: " + conf + ":2: unknown key 'exclusve' — did you mean exclusive?"
                + " (keys are gpusched serve's long options without --; see gpusched --help)\n"), r);
        assertTrue(!Files.exists(dir.resolve("run/s.sock")));
    }
}
