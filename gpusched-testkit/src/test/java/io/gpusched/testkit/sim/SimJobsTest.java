package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimJobsTest {
    @TempDir
    Path cache;

    private static byte[] nativeBinary() throws Exception {
        try (InputStream in = SimJobs.class.getResourceAsStream(SimJobs.RESOURCE)) {
            return in.readAllBytes();
        }
    }

    @Test
    void extractsOnceUnderAContentHashAndRuns() throws Exception {
        byte[] binary = nativeBinary();
        Path first = SimJobs.extractTo(cache, binary).orElseThrow();
        assertTrue(first.getFileName().toString().matches("simjob-[0-9a-f]{16}"), first.toString());
        assertTrue(Files.isExecutable(first));
        assertTrue(SimJobs.runsHere(first));
        var modified = Files.getLastModifiedTime(first);
        assertEquals(first, SimJobs.extractTo(cache, binary).orElseThrow());
        assertEquals(modified, Files.getLastModifiedTime(first), "an intact copy is reused");
        try (var files = Files.list(cache)) {
            assertEquals(1, files.count(), "no temporary files are left behind");
        }
    }

    @Test
    void theBuildRecordsTheDigestOfTheBinaryItShips_soAStartNeedNotHashIt() throws Exception {
        // A stale or missing record would name the copy after other bytes, or hash at every start again.
        assertEquals(java.util.Optional.of(SimJobs.hash(nativeBinary())), SimJobs.recordedHash());
    }

    @Test
    void aDamagedCopyIsReplaced() throws Exception {
        byte[] binary = nativeBinary();
        Path copy = SimJobs.extractTo(cache, binary).orElseThrow();
        Files.writeString(copy, "#!/bin/sh\necho planted\n");
        assertEquals(copy, SimJobs.extractTo(cache, binary).orElseThrow());
        assertArrayEquals(binary, Files.readAllBytes(copy));
    }

    @Test
    void somethingThatIsNotTheSimJobDoesNotPassTheProbe() throws Exception {
        Path fake = SimJobs.extractTo(cache, "#!/bin/sh\necho hello\n".getBytes(StandardCharsets.UTF_8)).orElseThrow();
        assertFalse(SimJobs.runsHere(fake));
        assertFalse(SimJobs.runsHere(cache.resolve("missing")));
    }

    @Test
    void javaCommandRunsTheJavaTwin() throws Exception {
        List<String> cmd = new ArrayList<>(SimJobs.javaCommand());
        cmd.add("--probe");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor());
        assertEquals(SimJob.PROBE_OUTPUT, out);
    }

    @Test
    void aRootJvmTakesOnlyACopyEveryUserCanRunAndOnlyRootCanChange() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.getAttribute(cache, "unix:uid").equals(0), "needs root");
        Path open = Files.createDirectories(cache.resolve("open"));
        Files.setPosixFilePermissions(cache, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path everyones = SimJobs.extractTo(open, nativeBinary()).orElseThrow();
        assertTrue(SimJobs.everyoneRunsOnlyRootChanges(everyones), everyones.toString());
        // A directory only root enters (as /root): others cannot run what is in it.
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        assertFalse(SimJobs.everyoneRunsOnlyRootChanges(everyones));
        // One others may write: they could put another program in its place.
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        assertFalse(SimJobs.everyoneRunsOnlyRootChanges(everyones));
    }
}
