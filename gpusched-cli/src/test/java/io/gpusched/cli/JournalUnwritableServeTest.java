package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code gpusched serve} daemon whose journal's disk is full: {@code submit} and {@code srun} are
 * refused with one line and no number, are taken again once space returns (no restart), and a SIGKILL
 * then loses no acknowledged job, keeps no refused one and skips no number.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JournalUnwritableServeTest {
    @TempDir
    Path dir;

    private FullDisk disk;
    private ServeDaemon daemon;

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
        if (disk != null) {
            disk.close();
        }
    }

    /** A daemon whose log directory, journal included, is a small tmpfs of its own. */
    private void serveOnSmallDisk() throws Exception {
        Optional<FullDisk> d = FullDisk.mount(dir.resolve("logs"), 1024);
        Assumptions.assumeTrue(d.isPresent(), "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN); skipped");
        disk = d.get();
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1").start();
    }

    private Path journal() {
        return daemon.logs().resolve("journal.jsonl");
    }

    private Result submit(String... command) {
        List<String> argv = new java.util.ArrayList<>(List.of("--output", dir.resolve("jobs.log").toString(), "--vram", "1G",
                "--"));
        argv.addAll(List.of(command));
        return daemon.verb("submit", argv.toArray(String[]::new));
    }

    /** The refusal: non-zero, no number, one line naming the journal, the cause and the fix. */
    private void assertRefused(Result r) {
        assertEquals(1, r.code(), r.toString());
        assertEquals("", r.out(), "a refused submission printed a number");
        assertEquals("gpusched: submission refused: journal " + journal() + " cannot be written (No space left on device);"
                + " nothing was queued and no job number used — free space on its disk or make it writable, then submit"
                + " again\n", r.err());
    }

    /** The journal's submissions, by number, with their commands. */
    private List<String> journaledSubmissions() throws Exception {
        return JournalLines.read(journal()).lines().stream().filter(l -> l.event().equals("submitted"))
                .map(l -> l.field("no").orElse("?") + " " + l.field("command").orElse("?")).toList();
    }

    @Test
    void submitIsRefusedWhileTheJournalCannotBeWritten_takenAgainWhenItCan_andASigkillLosesNoAcknowledgedJob()
            throws Exception {
        serveOnSmallDisk();
        assertEquals(new Result(0, "submitted job 1\n", ""), submit("sleep 300"));
        daemon.awaitQueue("sleep 300");

        disk.fill(journal());
        assertRefused(submit("echo refused-1"));
        assertRefused(submit("echo refused-2"));
        try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
            ServiceException e = assertThrows(ServiceException.class, () -> c.submit(new GpuschedClient.Submission(
                    "[vram=1G] echo refused-0", dir, Optional.empty(), Optional.of(dir.resolve("jobs.log")), Optional.empty())));
            assertEquals("journal_unwritable", e.code(), e.getMessage());
        }
        daemon.awaitQueue("sleep 300"); // the running job is not disturbed, and the daemon still answers

        disk.free();
        assertEquals(new Result(0, "submitted job 2\n", ""), submit("sleep 301"), "not taken again without a restart,"
                + " or a refusal used up a number");
        disk.fill(journal());
        assertRefused(submit("echo refused-3"));

        daemon.kill();
        disk.free();
        daemon.start();
        assertEquals(List.of("1 sleep 300", "2 sleep 301"), journaledSubmissions(),
                "an acknowledged job was lost, or a refused one kept");
        assertEquals(new Result(0, "submitted job 3\n", ""), submit("true"), "a number was skipped");
        String queue = daemon.awaitQueue("sleep 301");
        assertTrue(queue.contains("sleep 300"), queue);
        assertFalse(queue.contains("refused-"), queue);
    }

    /**
     * {@code gpusched srun --vram 1G -- ARGS} as a process in the test's directory; one that still waits
     * after 60 s (a lease the daemon queued instead of refusing, say) fails the test rather than hang it.
     */
    private Result srun(String... command) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("--vram", "1G", "--"));
        argv.addAll(List.of(command));
        Process p = daemon.client(dir, "srun", argv.toArray(String[]::new));
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("srun " + argv + " still waits after 60 s: " + ServeDaemon.result(p));
        }
        return ServeDaemon.result(p);
    }

    @Test
    void srunIsRefusedTheSameWay_andItsNumberIsNotUsedUp() throws Exception {
        serveOnSmallDisk();
        Result first = srun("echo", "ran-1");
        assertEquals(0, first.code(), first.toString());
        assertTrue(first.err().contains("job 1 granted"), first.err());

        disk.fill(journal());
        Result refused = srun("echo", "refused-1");
        assertRefused(refused);
        try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
            ServiceException e = assertThrows(ServiceException.class, () -> c.srun("[vram=1G] echo refused-0", dir, w -> { }));
            assertEquals("journal_unwritable", e.code(), e.getMessage());
        }

        disk.free();
        Result second = srun("echo", "ran-2");
        assertEquals(0, second.code(), second.toString());
        assertTrue(second.err().contains("job 2 granted"), "a refusal used up a number: " + second.err());
        disk.fill(journal());
        assertRefused(srun("echo", "refused-2"));

        daemon.kill();
        disk.free();
        daemon.start();
        assertEquals(List.of("1 echo ran-1", "2 echo ran-2"), journaledSubmissions(),
                "an acknowledged srun was lost, or a refused one kept");
        Result third = srun("true");
        assertTrue(third.err().contains("job 3 granted"), "a number was skipped: " + third.err());
    }
}
