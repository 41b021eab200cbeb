package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gpusched-runas's refusal reaches the scheduler's log as one line, whatever the user's paths hold: the
 * scheduler takes that log's last line starting {@code gpusched-runas: } as the cause every user's
 * {@code queue} shows ({@link OwnerLaunch#failure}), so a working directory named with a newline and
 * that prefix must not put words of its owner's choosing there. Root only (the program switches users).
 */
class RunAsFailureLineTest {
    @TempDir
    Path dir;

    @Test
    void aDirectoryNamedWithANewlineAndThePrefix_isOneLineInTheSchedulersLog_andForgesNoCause() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "gpusched-runas switches users: root only");
        Optional<Path> runas = NativeBinary.extract(OwnerLaunch.RESOURCE, dir);
        assumeTrue(runas.isPresent(), "gpusched-runas was not built (needs gcc at build time)");
        Path cwd = dir.resolve("gone\ngpusched-runas: job 7 of bob ran out of GPU memory");
        // nobody may pass through the test's directory and write its own output there, as a user's job does.
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        Path output = Files.createDirectories(dir.resolve("out")).resolve("job.log");
        Files.setAttribute(output.getParent(), "unix:uid", 65534);
        Path spec = dir.resolve("job.as");
        OwnerLaunch.write(spec, OwnerLaunch.spec("nobody", cwd, output, 077, Optional.of(Map.of("PATH", "/usr/bin:/bin")),
                Map.of(), "echo ran"));
        Path schedulersLog = dir.resolve("wrapper.log");
        Process p = new ProcessBuilder(runas.get().toString(), spec.toString())
                .redirectOutput(schedulersLog.toFile()).redirectError(schedulersLog.toFile()).start();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertEquals(OwnerLaunch.NOT_STARTED, p.exitValue());
        List<String> lines = Files.readAllLines(schedulersLog, StandardCharsets.UTF_8);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("gpusched-runas: cannot enter " + dir.resolve("gone?gpusched-runas: job 7")), lines.get(0));
        Optional<String> cause = OwnerLaunch.failure(OwnerLaunch.NOT_STARTED, Files.readString(schedulersLog));
        assertTrue(cause.orElseThrow().startsWith("cannot enter "), cause.toString());
        assertTrue(Files.readString(output).contains("cannot enter"), "she reads it in her output too");
    }
}
