package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.as;
import static io.gpusched.cli.UnixUsers.ownDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root daemon whose user is at her process limit (RLIMIT_NPROC, the daemon's own: no PAM session is
 * opened for a job): the kernel lets gpusched-runas's setuid pass and refuses its exec with EAGAIN. Her
 * job does not run then, and the queue and the daemon's log say why; it waits and is tried again, and runs
 * once her other processes have ended. Real users; needs root, setpriv, python3 and prlimit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UserAtProcessLimitTest {
    private static final String ADA = "s39h3-nproc";

    @TempDir
    Path dir;
    private Process daemon;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = new UnixUsers.ForClass(() -> {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit (package util-linux)");
        return UnixUsers.create(ADA);
    });

    @AfterEach
    void stop() {
        if (daemon != null && daemon.isAlive()) {
            ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
        }
    }

    private String queue() {
        return ServeDaemon.cli("queue", "--socket", dir.resolve("run/gpusched.sock").toString()).out();
    }

    @Test
    void aJobWhoseOwnerIsAtTheProcessLimit_waits_saysWhy_andRunsOnceHerProcessesEnd() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path socket = dir.resolve("run/gpusched.sock");
        // A limit of 0, and one process of hers, her sleep (the kernel counts her processes at the setuid,
        // before it counts gpusched-runas, and refuses the exec when they are over): she is over it until
        // her sleep ends. Root, the daemon and its spawner, is not held to it.
        daemon = new ProcessBuilder(List.of("/usr/bin/prlimit", "--nproc=0", "--", ServeDaemon.java(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "serve", "--sim", "1", "--poll", "0.1",
                "--socket", socket.toString(), "--log-dir", dir.resolve("logs").toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             ServeDaemon.cli("queue", "--socket", socket.toString()).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), Files.readString(dir.resolve("daemon.log")));
        }
        Path home = ownDir(ADA, dir.resolve(ADA));
        Process hers = new ProcessBuilder(UnixUsers.setpriv(ADA, "/bin/sleep", "600")).start();
        try {
            submitAndAwaitTheRefusal(socket, home);
        } finally {
            hers.destroyForcibly().waitFor();
        }
        // Her sleep has ended: the next try, after its back-off of 15 s, runs the job.
        String q = queue();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !q.contains("job 1 ok"); q = queue()) {
            assertTrue(System.nanoTime() < end && !q.contains("job 1 failed"), q);
            Thread.sleep(200);
        }
        assertEquals("ran\n", Files.readString(home.resolve("ran.txt")));
    }

    private void submitAndAwaitTheRefusal(Path socket, Path home) throws Exception {
        String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"echo ran > ran.txt\",\"cwd\":\"" + home + "\"}";
        assertTrue(as(ADA, socket, submit).contains("\"ok\":true"));
        Path daemonLog = dir.resolve("daemon.log");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
             !Files.readString(daemonLog).contains("to be tried again (try 2 of 7)"); Thread.sleep(100)) {
            assertTrue(System.nanoTime() < end, Files.readString(daemonLog));
        }
        assertFalse(Files.exists(home.resolve("ran.txt")), "the command ran");
        // Before, its first refusal failed it ("failed, exit 126"); now it waits, and the log and queue say why.
        String log = Files.readString(daemonLog);
        assertTrue(log.contains("cannot run /bin/sh as " + ADA + ": Resource temporarily unavailable: " + ADA + " has as many"
                + " processes as the scheduler's limit allows (RLIMIT_NPROC 0); it did not run, and waits 15 s to be tried"
                + " again (try 2 of 7)"), log);
        String shown = ServeDaemon.cli("show", "1", "--socket", socket.toString()).out();
        assertTrue(shown.contains("process limit (RLIMIT_NPROC)") && !shown.contains("failed"), shown);
        // She reads it in her output too.
        assertTrue(Files.readString(home.resolve("gpusched-1.log")).contains("RLIMIT_NPROC"), "her output");
    }
}
