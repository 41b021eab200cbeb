package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.as;
import static io.gpusched.cli.UnixUsers.asUser;
import static io.gpusched.cli.UnixUsers.output;
import static io.gpusched.cli.UnixUsers.ownDir;
import static io.gpusched.cli.UnixUsers.run;
import static io.gpusched.cli.UnixUsers.toResult;
import static io.gpusched.cli.UnixUsers.userClasspath;
import io.gpusched.cli.UnixUsers.Result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
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

    @TempDir
    Path dir;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = UnixUsers.ForClass.created(ALICE, BOB);

    private Process serve(Path socket) throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process daemon = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", socket.toString(),
                "--log-dir", dir.resolve("logs").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        // Until it answers, not until the file exists: the socket is made 0666 just after it is bound.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             ServeDaemon.cli("queue", "--socket", socket.toString()).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), Files.readString(dir.resolve("daemon.log")));
        }
        return daemon;
    }

    private static void stop(Process daemon) throws Exception {
        // Nothing of the test's users may outlive it (userdel refuses a user with processes).
        ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
    }

    /** Waits until the queue, as root's {@code gpusched queue} prints it, passes {@code test}. */
    private static void awaitQueue(String socket, java.util.function.Predicate<String> test) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !test.test(ServeDaemon.cli("queue", "--socket", socket).out()); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, ServeDaemon.cli("queue", "--socket", socket).out());
        }
    }

    /**
     * For a failed look at the queue: when it was asked, when the job had shown it ran, and the snapshot
     * a moment later with its time ({@code at}), so a stale answer shows how stale it was.
     */
    private String whenAnswered(Path socket, java.time.Instant asked, Path ran) {
        try {
            return "\nasked at " + asked + "; " + ran.getFileName() + " written at " + Files.getLastModifiedTime(ran)
                    + "\nqueue --json a moment later: " + ServeDaemon.cli("queue", "--json", "--socket", socket.toString()).out()
                    + "\ndaemon.log:\n" + Files.readString(dir.resolve("daemon.log"));
        } catch (java.io.IOException e) {
            return "\n(" + e + ")";
        }
    }

    /** Waits until a file exists and is not blank. */
    private void awaitFile(Path file, String what) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !Files.exists(file) || Files.readString(file).isBlank(); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, what + ": " + Files.readString(dir.resolve("daemon.log")));
        }
    }

    @Test
    void aUsersJobLogIsHers_whereverItGoes_andNobodyElsesButAnAdmins() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = serve(socket);
        try {
            String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
            String s = socket.toString();
            Path home = ownDir(ALICE, dir.resolve(ALICE));
            Path outs = ownDir(ALICE, home.resolve("outs"));
            assertEquals(new Result(0, "submitted job 1\n", ""), asUser(ALICE, cp, home, "submit", "--socket", s,
                    "--vram", "1G", "--output", "outs/mine.log", "--", "echo via-output; /usr/bin/id -un"));
            assertEquals(new Result(0, "submitted job 2\n", ""), asUser(ALICE, cp, home, "submit", "--socket", s,
                    "--vram", "1G", "--", "echo default-log; /usr/bin/id -un"));
            awaitQueue(s, q -> q.contains("✓ job 2 ok"));
            assertEquals(ALICE, Files.getOwner(outs.resolve("mine.log")).getName(), "she opened her --output file");
            assertEquals(ALICE, Files.getOwner(home.resolve("gpusched-2.log")).getName());
            assertTrue(!Files.exists(home.resolve("gpusched-1.log")), "job 1's output went where she said");

            assertEquals(new Result(0, "via-output\n" + ALICE + "\n", ""), asUser(ALICE, cp, home, "logs", "--socket", s, "1"));
            assertEquals(new Result(0, "default-log\n" + ALICE + "\n", ""),
                    asUser(ALICE, cp, home, "logs", "--socket", s, "-f", "2"));
            Result bob = asUser(BOB, cp, dir, "logs", "--socket", s, "2");
            assertEquals(new Result(1, "", "gpusched: job 2 is gs-alice's; only gs-alice or an admin (root) may read its log\n"),
                    bob, "the daemon does not tell bob where her output is");
            assertEquals(toResult(ServeDaemon.cli("logs", "--socket", s, "1")),
                    new Result(0, "via-output\n" + ALICE + "\n", ""), "root is an admin");
        } finally {
            stop(daemon);
        }
    }

    @Test
    void aUserCancelsAllHerJobsAtOnce_seesOnlyHersWithUserMe_andNobodyElseMayCancelThem() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = serve(socket);
        try {
            String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
            String s = socket.toString();
            Path alice = ownDir(ALICE, dir.resolve(ALICE));
            Path bob = ownDir(BOB, dir.resolve(BOB));
            for (String[] job : new String[][] {{ALICE, alice.toString()}, {ALICE, alice.toString()}, {BOB, bob.toString()}}) {
                String answer = as(job[0], socket, "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] sleep 30\",\"cwd\":\""
                        + job[1] + "\"}");
                assertTrue(answer.contains("\"ok\":true"), answer);
            }
            awaitQueue(s, q -> q.startsWith("3 running"));
            Result mine = asUser(ALICE, cp, alice, "queue", "--socket", s, "--user", "me");
            assertTrue(mine.out().startsWith("2 running, 0 pending, 0 done\n") && mine.out().contains("▶ job 1 ")
                    && mine.out().contains("▶ job 2 ") && !mine.out().contains("job 3"), mine.toString());

            assertEquals(new Result(1, "", "gpusched: only gs-alice or an admin (root) may cancel gs-alice's jobs\n"),
                    asUser(BOB, cp, bob, "cancel", "--socket", s, "--user", ALICE));
            assertEquals(new Result(0, "job 1: stopping (SIGTERM to its session)\njob 2: stopping (SIGTERM to its session)\n",
                    ""), asUser(ALICE, cp, alice, "cancel", "--socket", s, "--user", "me"), "hers, not bob's");
            assertEquals(new Result(0, "job 3: stopping (SIGTERM to its session)\n", ""),
                    toResult(ServeDaemon.cli("cancel", "--socket", s, "--user", BOB)), "root is an admin");
        } finally {
            stop(daemon);
        }
    }

    @Test
    void aUsersSrunRunsAsHerInHerTerminal_isHersInTheQueue_andNobodyElseCanTakeUpHerGrant() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = serve(socket);
        try {
            String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
            String s = socket.toString();
            Path home = ownDir(ALICE, dir.resolve(ALICE));
            Path go = home.resolve("go");
            java.util.concurrent.CompletableFuture<Result> srun = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return asUser(ALICE, cp, home, "srun", "--socket", s, "--quiet", "--vram", "1G", "--",
                            "/usr/bin/id -un; echo gpus=$CUDA_VISIBLE_DEVICES; while [ ! -e " + go + " ]; do sleep 0.1; done");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitQueue(s, q -> q.contains("▶ job 1"));
            assertTrue(ServeDaemon.cli("queue", "--socket", s).out().contains("[" + ALICE + "]"), "the grant is hers");
            // The run token is no secret (a journal path and a number): the kernel's word on who asks is what counts.
            String token = dir.resolve("logs/journal.jsonl").toAbsolutePath() + "#1";
            String bob = as(BOB, socket, "{\"v\":1,\"op\":\"srun_attach\",\"no\":1,\"token\":\"" + token + "\"}");
            assertTrue(bob.contains("\"code\":\"not_held\""), bob);
            String bobCancels = as(BOB, socket, "{\"v\":1,\"op\":\"cancel\",\"no\":1}");
            assertTrue(bobCancels.contains("\"code\":\"forbidden\""), bobCancels);
            Files.writeString(go, "");
            assertEquals(new Result(0, ALICE + "\ngpus=0\n", ""), srun.get(60, TimeUnit.SECONDS));
            awaitQueue(s, q -> q.contains("✓ job 1 ok"));
        } finally {
            stop(daemon);
        }
    }

    @Test
    void eachJobRunsAsItsSubmitter_andUsersActOnlyOnTheirOwnJobs() throws Exception {
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = serve(socket);
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
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); !Files.readString(log).contains("to-the-log"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, "log: " + Files.readString(log) + " daemon: " + Files.readString(dir.resolve("daemon.log")));
            }

            // Asked after she saw her job run: the answer waits for the board of the round that started it.
            java.time.Instant asked = java.time.Instant.now();
            ByteArrayOutputStream queue = new ByteArrayOutputStream();
            new Cli(new PrintStream(queue, true, StandardCharsets.UTF_8), System.err, s -> { })
                    .run("queue", "--socket", socket.toString());
            assertTrue(queue.toString(StandardCharsets.UTF_8).contains("/bin/sleep 30   [" + ALICE + "]"),
                    () -> queue + whenAnswered(socket, asked, home.resolve("uid")));

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
        Process daemon = serve(socket);
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
