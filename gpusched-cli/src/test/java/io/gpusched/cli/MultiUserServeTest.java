package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon run by root, shared by two real Unix users the test creates: each job runs as its submitter,
 * its log is theirs, and one user cannot cancel another's job nor pause a GPU. Needs root, useradd,
 * setpriv (util-linux) and python3 (the users' client: the test's classpath is not theirs to read).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MultiUserServeTest {
    private static final String ALICE = "gs-alice";
    private static final String BOB = "gs-bob";
    private static final List<String> CREATED = new ArrayList<>();

    @TempDir
    Path dir;

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    private static String output(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out.strip();
    }

    @BeforeAll
    static void users() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create users and serve them");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd (package passwd)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (package util-linux)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3 for the users' client");
        for (String u : List.of(ALICE, BOB)) {
            if (run("id", u) != 0) {
                assertEquals(0, run("/usr/sbin/useradd", "--no-create-home", "--user-group", "--shell", "/bin/sh", u));
                CREATED.add(u);
            }
        }
    }

    @AfterAll
    static void removeUsers() throws Exception {
        for (String u : CREATED) {
            run("/usr/sbin/userdel", u);
        }
    }

    /** One request as a user, through a plain socket client run as that user; the answer line. */
    private String as(String user, Path socket, String request) throws Exception {
        String py = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
                + " s.sendall(sys.argv[2].encode()+b'\\n'); print(s.makefile().readline().strip())";
        return output("/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "/usr/bin/python3", "-c", py,
                socket.toString(), request);
    }

    /** Root's daemon on {@code socket}, once it listens. */
    private Process daemon(Path socket) throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process daemon = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", socket.toString(),
                "--log-dir", dir.resolve("logs").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !Files.exists(socket); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), Files.readString(dir.resolve("daemon.log")));
        }
        return daemon;
    }

    private static void stop(Process daemon) throws Exception {
        new ProcessBuilder("kill", "-TERM", String.valueOf(daemon.pid())).start().waitFor();
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS));
    }

    /** Waits until a file exists and is not blank. */
    private void awaitFile(Path file, String what) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !Files.exists(file) || Files.readString(file).isBlank(); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, what + ": " + Files.readString(dir.resolve("daemon.log")));
        }
    }

    @Test
    void eachJobRunsAsItsSubmitter_andUsersActOnlyOnTheirOwnJobs() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = daemon(socket);
        try {
            assertEquals("rw-rw-rw-", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
            Path home = Files.createDirectories(dir.resolve("alice"));
            assertEquals(0, run("chown", ALICE + ":" + ALICE, home.toString()));
            // A PATH without setpriv or id: the wrapper finds them on the system's; the job gets its own.
            String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] echo $PATH > path; /usr/bin/id -u > uid;"
                    + " echo to-the-log; /bin/sleep 30\",\"cwd\":\"" + home + "\",\"env\":{\"PATH\":\"/nowhere\","
                    + "\"HOME\":\"" + home + "\"}}";
            assertEquals("{\"v\":1,\"ok\":true,\"no\":1}", as(ALICE, socket, submit));
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !Files.exists(home.resolve("uid")) || Files.readString(home.resolve("uid")).isBlank(); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, "alice's job never ran: " + Files.readString(dir.resolve("daemon.log")));
            }
            assertEquals(output("id", "-u", ALICE), Files.readString(home.resolve("uid")).strip(), "the job ran as alice");
            assertEquals("/nowhere", Files.readString(home.resolve("path")).strip(), "with the PATH she submitted with");
            Path log = home.resolve("gpusched-1.log");
            assertEquals(ALICE, Files.getOwner(log).getName(), "alice's job wrote its own log");
            assertEquals(ALICE, Files.getOwner(home.resolve("uid")).getName());
            assertTrue(Files.readString(log).contains("to-the-log"));

            ByteArrayOutputStream queue = new ByteArrayOutputStream();
            new Cli(new PrintStream(queue, true, StandardCharsets.UTF_8), System.err, s -> { })
                    .run("queue", "--socket", socket.toString());
            assertTrue(queue.toString(StandardCharsets.UTF_8).contains("/bin/sleep 30   [" + ALICE + "]"), queue.toString());

            String bobCancels = as(BOB, socket, "{\"v\":1,\"op\":\"cancel\",\"no\":1}");
            assertTrue(bobCancels.contains("\"code\":\"forbidden\"") && bobCancels.contains("job 1 is gs-alice's"), bobCancels);
            String bobPauses = as(BOB, socket, "{\"v\":1,\"op\":\"pause\",\"gpu\":0}");
            assertTrue(bobPauses.contains("\"code\":\"forbidden\"") && bobPauses.contains("for admins"), bobPauses);
            assertEquals("{\"v\":1,\"ok\":true,\"outcome\":\"stopping\"}", as(ALICE, socket, "{\"v\":1,\"op\":\"cancel\",\"no\":1}"));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, s -> { })
                    .run("pause", "--socket", socket.toString(), "0");
            assertEquals(0, code, "root pauses: " + out);
        } finally {
            stop(daemon);
        }
    }

    @Test
    void aSubmittersCondaEnvironmentAndSetupRunAsThem_withTheirPath_andAFailedSetupIsSaidInTheirLog() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = daemon(socket);
        try {
            Path home = Files.createDirectories(dir.resolve("alice"));
            Path bin = FakeConda.install(home.resolve("condabin"), home.resolve("conda-argv"));
            Files.writeString(home.resolve("activate"), "export GREETING=hello\n");
            assertEquals(0, run("chown", "-R", ALICE + ":" + ALICE, home.toString()));
            String env = ",\"cwd\":\"" + home + "\",\"env\":{\"PATH\":\"" + bin + ":/usr/bin:/bin\",\"HOME\":\"" + home + "\"}}";
            // The line as JSON: its quotes escaped once more.
            String line = "[conda=torch setup='. ./activate'] echo \\\"$GREETING $CONDA_DEFAULT_ENV $(id -u)\\\" > out";
            assertEquals("{\"v\":1,\"ok\":true,\"no\":1}", as(ALICE, socket, "{\"v\":1,\"op\":\"submit\",\"line\":\"" + line + "\"" + env));
            awaitFile(home.resolve("out"), "alice's conda job never ran");
            assertEquals("hello torch " + output("id", "-u", ALICE), Files.readString(home.resolve("out")).strip());
            assertEquals(ALICE, Files.getOwner(home.resolve("conda-argv")).getName(), "conda ran as alice");
            assertEquals(List.of(List.of("run", "-n", "torch", "--no-capture-output", "sh", "-c",
                    "echo \"$GREETING $CONDA_DEFAULT_ENV $(id -u)\" > out")), FakeConda.calls(home.resolve("conda-argv")));

            assertEquals("{\"v\":1,\"ok\":true,\"no\":2}", as(ALICE, socket,
                    "{\"v\":1,\"op\":\"submit\",\"line\":\"[setup='echo no venv here; false'] touch ran\"" + env));
            Path log = home.resolve("gpusched-2.log");
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !Files.exists(log) || !Files.readString(log).contains("gpusched: setup exited"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, "no setup line in alice's log: " + Files.readString(dir.resolve("daemon.log")));
            }
            assertEquals("no venv here\ngpusched: setup exited 1; the command did not run\n", Files.readString(log));
            assertEquals(ALICE, Files.getOwner(log).getName());
            assertFalse(Files.exists(home.resolve("ran")));
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !Files.readString(dir.resolve("daemon.log")).contains("job 2: setup exited 1"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, Files.readString(dir.resolve("daemon.log")));
            }
        } finally {
            stop(daemon);
        }
    }
}
