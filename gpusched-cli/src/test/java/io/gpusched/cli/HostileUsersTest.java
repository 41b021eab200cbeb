package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.as;
import static io.gpusched.cli.UnixUsers.output;
import static io.gpusched.cli.UnixUsers.ownDir;
import static io.gpusched.cli.UnixUsers.run;
import static io.gpusched.cli.UnixUsers.userClasspath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root daemon against a hostile local user (issue #28): each test is an attack that worked before
 * and must not now. Real Unix users the test creates; needs root, useradd, setpriv, python3 and gcc.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HostileUsersTest {
    private static final String MALLORY = "gs-mallory";
    private static final String VICTIM = "gs-victim";

    @TempDir
    Path dir;
    private Process daemon;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = new UnixUsers.ForClass(() -> {
        assumeTrue(run("sh", "-c", "command -v gcc") == 0, "needs gcc to build the LD_PRELOAD library");
        return UnixUsers.create(MALLORY, VICTIM);
    });

    @AfterEach
    void stop() throws Exception {
        if (daemon != null && daemon.isAlive()) {
            // Nothing of the test's users may outlive it (userdel refuses a user with processes).
            ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
        }
    }

    private Path socket() {
        return dir.resolve("run/gpusched.sock");
    }

    private Path logs() {
        return dir.resolve("logs");
    }

    /** Root's daemon, with a variable of its own that no job may see. */
    private void serve() throws Exception {
        serve(List.of(), Map.of());
    }

    /**
     * Root's daemon, started through {@code starter} (a command that execs its arguments), with
     * {@code env} added to its environment.
     */
    private void serve(List<String> starter, Map<String, String> env, String... options) throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> argv = new ArrayList<>(starter);
        argv.addAll(List.of(ServeDaemon.java(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket",
                socket().toString(), "--log-dir", logs().toString()));
        argv.addAll(List.of(options));
        ProcessBuilder pb = new ProcessBuilder(argv)
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile());
        pb.environment().put("GS_DAEMON_SECRET", "root-only-value");
        pb.environment().putAll(env);
        daemon = pb.start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             ServeDaemon.cli("queue", "--socket", socket().toString()).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), daemonLog());
        }
    }

    private String daemonLog() throws Exception {
        return Files.readString(dir.resolve("daemon.log"));
    }

    /** The CLI as {@code user}, with {@code env} added to its environment (set as them) and their umask. */
    private static UnixUsers.Result cliAs(String user, String cp, Path cwd, Map<String, String> env, String umask,
                                          String... args) throws Exception {
        List<String> argv = UnixUsers.setpriv(user, "/bin/sh", "-c", "umask " + umask + "; exec \"$@\"", "sh", "/usr/bin/env");
        env.forEach((k, v) -> argv.add(k + "=" + v));
        argv.addAll(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-cp", cp,
                Main.class.getName()));
        argv.addAll(List.of(args));
        return UnixUsers.toResult(ServeDaemon.result(new ProcessBuilder(argv).directory(cwd.toFile()).start()));
    }

    private static void await(Path file, String what, Process daemon, Path log) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
             !Files.exists(file) || Files.readString(file).isBlank(); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, what + ": " + Files.readString(log));
        }
    }

    private void awaitQueue(java.util.function.Predicate<String> test) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
             !test.test(ServeDaemon.cli("queue", "--socket", socket().toString()).out()); Thread.sleep(100)) {
            assertTrue(System.nanoTime() < end, ServeDaemon.cli("queue", "--socket", socket().toString()).out() + daemonLog());
        }
    }

    @Test
    void anLdPreloadASubmitterSendsIsNeverLoadedByARootProcess_throughTheCliOrTheRawProtocol() throws Exception {
        Path mark = dir.resolve("loaded-as-root");
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.writeString(lib.resolve("evil.c"), "#include <stdio.h>\n#include <unistd.h>\n"
                + "__attribute__((constructor)) static void mark(void) {\n"
                + "  if (geteuid() == 0) { FILE *f = fopen(\"" + mark + "\", \"a\"); if (f) { fprintf(f, \"pid %d\\n\", getpid());"
                + " fclose(f); } }\n}\n");
        assertEquals(0, run("gcc", "-shared", "-fPIC", "-o", lib.resolve("evil.so").toString(), lib.resolve("evil.c").toString()));
        String so = lib.resolve("evil.so").toString();
        serve();
        Path home = ownDir(MALLORY, dir.resolve(MALLORY));
        String raw = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] echo \\\"$LD_PRELOAD\\\" > raw\",\"cwd\":\"" + home
                + "\",\"env\":{\"LD_PRELOAD\":\"" + so + "\",\"PATH\":\"/usr/bin:/bin\"}}";
        assertTrue(as(MALLORY, socket(), raw).contains("\"ok\":true"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        UnixUsers.Result cli = cliAs(MALLORY, cp, home, Map.of("LD_PRELOAD", so), "022", "submit", "--socket",
                socket().toString(), "--vram", "1G", "--", "echo \"$LD_PRELOAD\" > cli");
        assertEquals(0, cli.code(), cli.toString());
        await(home.resolve("raw"), "the raw submission never ran", daemon, dir.resolve("daemon.log"));
        await(home.resolve("cli"), "the CLI submission never ran", daemon, dir.resolve("daemon.log"));
        assertEquals(so, Files.readString(home.resolve("raw")).strip(), "her own processes keep her LD_PRELOAD");
        assertEquals(so, Files.readString(home.resolve("cli")).strip());
        awaitQueue(q -> q.contains("✓ job 2 ok") && q.contains("✓ job 1 ok"));
        assertFalse(Files.exists(mark), () -> "her library ran as root: " + read(mark));
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    @Test
    void aSubmissionWithoutEnvironmentRunsWithTheSubmittersLoginBasics_neverTheDaemons() throws Exception {
        serve();
        Path home = ownDir(MALLORY, dir.resolve(MALLORY));
        String raw = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] env > env.txt\",\"cwd\":\"" + home + "\"}";
        assertTrue(as(MALLORY, socket(), raw).contains("\"ok\":true"));
        await(home.resolve("env.txt"), "the job never ran", daemon, dir.resolve("daemon.log"));
        awaitQueue(q -> q.contains("✓ job 1 ok"));
        List<String> env = Files.readAllLines(home.resolve("env.txt"));
        assertTrue(env.contains("HOME=/home/" + MALLORY), env.toString());
        assertTrue(env.contains("USER=" + MALLORY) && env.contains("LOGNAME=" + MALLORY), env.toString());
        assertTrue(env.contains("SHELL=/bin/sh"), env.toString());
        assertTrue(env.contains("PATH=/usr/local/bin:/usr/bin:/bin"), env.toString());
        assertTrue(env.contains("CUDA_VISIBLE_DEVICES=0"), env.toString());
        assertFalse(env.stream().anyMatch(l -> l.startsWith("GS_DAEMON_SECRET=") || l.equals("HOME=/root")), env.toString());
    }

    @Test
    void noUserReadsAnothersEnvironment_throughAnythingTheDaemonWrites() throws Exception {
        serve();
        Path home = ownDir(VICTIM, dir.resolve(VICTIM));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        UnixUsers.Result r = cliAs(VICTIM, cp, home, Map.of("GS_API_TOKEN", "hunter2-token"), "022", "submit", "--socket",
                socket().toString(), "--vram", "1G", "--", "sleep 30");
        assertEquals(0, r.code(), r.toString());
        awaitQueue(q -> q.contains("sleep 30") && q.contains("running"));
        assertTrue(output("grep", "-rl", "hunter2-token", logs().toString()).contains("journal.jsonl"),
                "the journal holds it, for the job's restart");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(logs())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(logs().resolve("journal.jsonl"))));
        // Everything under the test's directory, as the other user sees it.
        String found = output("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups", "grep", "-rls",
                "hunter2-token", dir.toString());
        assertEquals("", found, "another user found the token in " + found);
        assertNotEquals(0, run("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups", "cat",
                logs().resolve("journal.jsonl").toString()));
    }

    @Test
    void aUmask077SubmittersOutputsStayPrivate() throws Exception {
        serve();
        Path home = ownDir(VICTIM, dir.resolve(VICTIM));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        UnixUsers.Result r = cliAs(VICTIM, cp, home, Map.of(), "077", "submit", "--socket", socket().toString(), "--vram",
                "1G", "--", "echo out; echo made > made.txt");
        assertEquals(new UnixUsers.Result(0, "submitted job 1\n", ""), r);
        awaitQueue(q -> q.contains("✓ job 1 ok"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("made.txt"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("gpusched-1.log"))));
    }

    @Test
    void anOutputFileAnotherUserPlanted_aLinkTheyMade_orAFifo_isNeverWrittenTo_norHoldsTheJob() throws Exception {
        serve();
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(0, run("chmod", "+t", shared.toString()));
        Path trap = shared.resolve("gpusched-1.log");
        Path hers = shared.resolve("mallory-owned.txt");
        // A FIFO no one reads: opened for writing the usual way, it would hold the victim's job there,
        // unrun but running as far as the queue knows, its GPU taken, for as long as she likes.
        Path fifo = shared.resolve("gpusched-3.log");
        String plant = "touch " + trap + " " + hers + " && chmod 666 " + trap + " " + hers + " && ln -s " + hers + " "
                + shared.resolve("gpusched-2.log") + " && mkfifo -m 666 " + fifo;
        assertEquals(0, run("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups", "sh", "-c", plant));
        for (int i = 0; i < 3; i++) {
            String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] echo victim-secret-output\",\"cwd\":\"" + shared
                    + "\"}";
            assertTrue(as(VICTIM, socket(), submit).contains("\"ok\":true"));
        }
        awaitQueue(q -> q.contains("job 1 failed") && q.contains("job 2 failed") && q.contains("job 3 failed"));
        assertTrue(daemonLog().contains("job 3: output " + fifo + " belongs to uid " + output("id", "-u", MALLORY)),
                daemonLog());
        assertEquals("", Files.readString(trap), "her planted file got the victim's output");
        assertEquals("", Files.readString(hers), "her link's target got the victim's output");
        String log = daemonLog();
        assertTrue(log.contains("job 1: output " + trap + " belongs to uid " + output("id", "-u", MALLORY) + ", not to "
                + VICTIM), log);
        assertTrue(log.contains("job 2: output " + shared.resolve("gpusched-2.log") + " is a symbolic link"), log);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "spawn server: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void signalsTheDaemonsStarterIgnoredOrBlocked_areAtTheirDefaultInEveryJob(boolean spawnServer) throws Exception {
        // nohup, or a shell's trap '', before the daemon: ignored signals survive every exec to the job,
        // where a shell may not trap them and a framework's checkpoint handler (SIGUSR1) never runs.
        serve(List.of("/bin/sh", "-c", "trap '' INT QUIT HUP USR1 USR2 TTOU TTIN; exec \"$@\"", "sh"),
                spawnServer ? Map.of() : Map.of("GPUSCHED_NO_SPAWND", "1"));
        assertTrue(Files.readString(Path.of("/proc", Long.toString(daemon.pid()), "status")).lines()
                .anyMatch(l -> l.startsWith("SigIgn:") && !l.endsWith("0000000000000000")), "the daemon ignores them");
        Path home = ownDir(VICTIM, dir.resolve(VICTIM));
        String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] grep -E '^Sig(Ign|Blk):' /proc/self/status > sig\","
                + "\"cwd\":\"" + home + "\"}";
        assertTrue(as(VICTIM, socket(), submit).contains("\"ok\":true"));
        Path sig = home.resolve("sig");
        await(sig, "the job wrote its signal state", daemon, dir.resolve("daemon.log"));
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); Files.readAllLines(sig).size() < 2; Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, Files.readString(sig));
        }
        List<String> lines = Files.readAllLines(sig).stream().sorted().toList();
        assertEquals("SigBlk:\t0000000000000000", lines.get(0));
        // Bits 31 and 32 are signals 32 and 33, which the C library keeps for its threads and lets no
        // program set: its posix_spawn leaves them ignored in whatever it starts (the JVM starts the spawn
        // server so), and nothing after can say otherwise.
        long ignored = Long.parseUnsignedLong(lines.get(1).substring("SigIgn:\t".length()), 16) & ~0x180000000L;
        assertEquals(0, ignored, "ignored in the job: " + lines.get(1));
    }

    @Test
    void anotherUsersJobOfTheSameName_neitherFailsNorReleasesMine() throws Exception {
        serve();
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        Path mallory = ownDir(MALLORY, dir.resolve(MALLORY));
        String prep = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G name=prep] sleep 2; date +%s%N > prep\",\"cwd\":\""
                + victim + "\"}";
        String train = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G after=prep] date +%s%N > train\",\"cwd\":\""
                + victim + "\"}";
        assertTrue(as(VICTIM, socket(), prep).contains("\"no\":1"));
        assertTrue(as(VICTIM, socket(), train).contains("\"no\":2"));
        // Hers is the newest job named prep now: were names shared, her train would end dependency_failed
        // when this fails, or start before her prep ended had it succeeded.
        String steal = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G name=prep] false\",\"cwd\":\"" + mallory + "\"}";
        assertTrue(as(MALLORY, socket(), steal).contains("\"no\":3"));
        // And her own after=prep names hers alone.
        String hers = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G after=prep] true\",\"cwd\":\"" + mallory + "\"}";
        assertTrue(as(MALLORY, socket(), hers).contains("\"no\":4"));
        await(victim.resolve("train"), "the victim's train ran", daemon, dir.resolve("daemon.log"));
        long prepDone = Long.parseLong(Files.readString(victim.resolve("prep")).strip());
        long trainStarted = Long.parseLong(Files.readString(victim.resolve("train")).strip());
        assertTrue(trainStarted >= prepDone, "her train ran before her prep ended");
        awaitQueue(q -> q.contains("job 4 dependency_failed") || q.contains("job 4 dependency failed"));
        String log = daemonLog();
        assertTrue(log.contains("job 4 DEPENDENCY FAILED — job 3 (prep) ended failed"), log);
        assertFalse(log.contains("job 2 DEPENDENCY FAILED"), log);
    }

    /**
     * The victim's srun client is granted a run whose token starts with {@code prefix}, then goes without
     * saying how its command ended (it crashed); nothing of the victim's run is left, so after the grace
     * a client has to come back, the job ends.
     */
    private void victimsSrunCrashes_andItsJobEnds(String prefix, String ifNot) throws Exception {
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        String py = "import socket,json,sys\ns=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rb')\n"
                + "s.sendall((json.dumps({'v':1,'op':'srun','line':'[vram=1G] python train.py','cwd':sys.argv[2]})+'\\n').encode())\n"
                + "while True:\n l=json.loads(f.readline())\n if l.get('event')=='granted' or not l.get('ok',True): print(json.dumps(l)); break\n";
        String granted = output(UnixUsers.setpriv(VICTIM, "/usr/bin/python3", "-c", py, socket().toString(), victim.toString())
                .toArray(String[]::new));
        assertTrue(granted.contains("\"granted\"") && granted.contains(prefix), granted);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(70);
             !daemonLog().contains("job 1: its srun client went away before its command ended"); Thread.sleep(200)) {
            assertTrue(System.nanoTime() < end, ifNot + ": " + daemonLog());
        }
    }

    @Test
    void aRunTokenInAnotherUsersProcess_doesNotKeepTheirSrunJobRunning() throws Exception {
        serve();
        // A run's token is the journal's path and a counter: no secret. Mallory puts the next few in
        // processes of hers before the victim's srun is granted one of them.
        String prefix = logs().resolve("journal.jsonl").toAbsolutePath() + "#";
        StringBuilder carriers = new StringBuilder();
        for (int run = 1; run <= 4; run++) {
            carriers.append("env ").append("GPUSCHED_RUN").append("='").append(prefix).append(run).append("' sleep 120 & ");
        }
        Process hers = new ProcessBuilder(UnixUsers.setpriv(MALLORY, "/bin/sh", "-c", carriers + "wait"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            victimsSrunCrashes_andItsJobEnds(prefix, "her processes kept the victim's job running");
            assertTrue(hers.isAlive(), "her processes are hers to end");
        } finally {
            hers.destroyForcibly();
            run("pkill", "-KILL", "-u", MALLORY);
        }
    }

    @Test
    void aSetuidRootProgramOfHersCarryingTheVictimsRunToken_doesNotKeepTheirSrunJobRunning() throws Exception {
        // Any user may run a set-user-ID root program with an environment of her choosing: su waiting at
        // its password prompt is a process whose effective user (and so the owner of its /proc entry) is
        // root, while its real user is hers. A process "of root" must not count as the victim's run.
        Path su = Path.of("/usr/bin/su");
        assumeTrue(Files.isExecutable(su) && "root".equals(Files.getOwner(su).getName())
                && (((Integer) Files.getAttribute(su, "unix:mode")) & 04000) != 0, "needs a set-user-ID root /usr/bin/su");
        serve();
        String prefix = logs().resolve("journal.jsonl").toAbsolutePath() + "#";
        String herUid = output("id", "-u", MALLORY);
        List<Process> hers = new ArrayList<>();
        try {
            for (int run = 1; run <= 4; run++) {
                // Its stdin is this test's pipe, never written: su waits at "Password:" for as long as it is open.
                hers.add(new ProcessBuilder(UnixUsers.setpriv(MALLORY, "/usr/bin/env", "GPUSCHED_RUN=" + prefix + run,
                        su.toString(), "root")).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
            for (Process p : hers) {
                Path status = Path.of("/proc/" + p.pid() + "/status");
                for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                     !Files.readString(status).matches("(?s).*\nUid:\t" + herUid + "\t0\t.*"); Thread.sleep(50)) {
                    assertTrue(System.nanoTime() < end && p.isAlive(), "su did not start as set-user-ID root: "
                            + Files.readString(status));
                }
            }
            victimsSrunCrashes_andItsJobEnds(prefix, "her set-user-ID processes kept the victim's job running");
        } finally {
            hers.forEach(Process::destroyForcibly);
            for (Process p : hers) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void submissionsCarryingHugeEnvironments_fillNeitherTheDaemonsMemoryNorItsDisk_pastTheirOwnersShare() throws Exception {
        // Each submission may carry an environment up to the 1 MiB line limit, and 200,000 may wait at once
        // (--max-queued-per-user): 200 GB that the journal writes to root's disk and the daemon holds in memory
        // until they end (distinct environments are not shared). Her share is capped: 8 MiB here.
        serve(List.of(), Map.of(), "--max-queued-size-per-user", "8M");
        Path hers = ownDir(MALLORY, dir.resolve(MALLORY));
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        // Her client: one job holding the GPU, then jobs that wait behind it, each with a different 1 MB
        // environment, until the daemon refuses one.
        String py = "import socket,json,sys\ns=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rb')\n"
                + "def submit(line, env):\n s.sendall((json.dumps({'v':1,'op':'submit','line':line,'cwd':sys.argv[2],'env':env})"
                + "+'\\n').encode()); return json.loads(f.readline())\n"
                + "print(json.dumps(submit('[vram=20G] sleep 120', {'PATH':'/usr/bin:/bin'})))\n"
                + "for i in range(30):\n"
                + " env={'PATH':'/usr/bin:/bin','N':str(i)}\n"
                + " for k in range(10): env['V%d' % k] = chr(97 + i % 26) * 100000\n"
                + " a=submit('[vram=20G] true', env)\n"
                + " if not a['ok']: print(json.dumps(a)); break\n"
                + " print(json.dumps(a), flush=True)\n";
        List<String> answers = output(UnixUsers.setpriv(MALLORY, "/usr/bin/python3", "-c", py, socket().toString(),
                hers.toString()).toArray(String[]::new)).lines().toList();
        String refusal = answers.get(answers.size() - 1);
        assertTrue(refusal.contains("queue_full") && refusal.contains("--max-queued-size-per-user 8M"),
                String.join("\n", answers));
        int taken = answers.size() - 1;
        assertTrue(taken >= 6 && taken <= 9, "her blocker and about 7 MB of waiting jobs: " + String.join("\n", answers));
        long journal = Files.size(logs().resolve("journal.jsonl"));
        assertTrue(journal < 9L * 1024 * 1024, "the journal holds her share and no more: " + journal + " bytes");
        // Others still submit, and her refusal used up no number.
        String theirs = as(VICTIM, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] true\",\"cwd\":\""
                + victim + "\"}");
        assertTrue(theirs.contains("\"no\":" + (taken + 1) + "}"), theirs + "\n" + String.join("\n", answers));
        // Her share comes back as her jobs end.
        assertTrue(as(MALLORY, socket(), "{\"v\":1,\"op\":\"cancel\",\"user\":\"" + MALLORY + "\"}").contains("\"ok\":true"));
        String again = as(MALLORY, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] true\",\"cwd\":\""
                + hers + "\",\"env\":{\"X\":\"" + "y".repeat(100_000) + "\"}}");
        assertTrue(again.contains("\"ok\":true"), again);
    }

    @Test
    void aUserWhoStopsTheReadOfHerFailedJobsOutput_costsTheLoopOneWait_notOnePerJob() throws Exception {
        // A failed job's output is read (for a CUDA OOM) by gpusched-runas --tail, as its owner, while the
        // scheduler's loop waits up to 2 s for it. Once it runs as her, it is hers to SIGSTOP: her watcher
        // spins kill(SIGSTOP) over the newest pids and keeps stopped each --tail it catches (the rest it lets
        // go on); her output's path, through 39 links of 2,000 "./" each, keeps the read in its open a while.
        // Each failed job of hers it catches held everyone's jobs 2 s. (With a FUSE file of hers that never
        // answers, every one would.) On a busy machine the watcher may catch none: nothing is tested then.
        Path c = Files.createDirectories(dir.resolve("stopper"));
        Files.writeString(c.resolve("stopper.c"), "#include <fcntl.h>\n#include <signal.h>\n#include <stdio.h>\n"
                + "#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
                + "int main(int argc, char **argv) {\n"
                + "  pid_t got[256]; int n = 0; int last = open(\"/proc/sys/kernel/ns_last_pid\", O_RDONLY);\n"
                + "  while (access(argv[2], F_OK) != 0) {\n"
                + "    char lb[32]; ssize_t lr = pread(last, lb, sizeof lb - 1, 0); if (lr <= 0) continue; lb[lr] = 0;\n"
                + "    pid_t top = atoi(lb);\n"
                + "    for (pid_t p = top - 24; p <= top + 8; p++) {\n"
                + "      if (p <= 1 || p == getpid()) continue;\n"
                + "      int seen = 0; for (int i = 0; i < n; i++) if (got[i] == p) seen = 1;\n"
                + "      if (seen || kill(p, SIGSTOP) != 0) continue;\n"
                + "      char path[64], b[512]; snprintf(path, sizeof path, \"/proc/%d/cmdline\", p);\n"
                + "      int fd = open(path, O_RDONLY); ssize_t r = fd < 0 ? 0 : read(fd, b, sizeof b - 1); if (fd >= 0) close(fd);\n"
                + "      size_t first = r > 0 ? strnlen(b, (size_t) r) : 0;\n"
                + "      if (r > 0 && strstr(b, \"gpusched-runas\") && (ssize_t) first + 7 < r && strcmp(b + first + 1, \"--tail\") == 0) {\n"
                + "        FILE *f = fopen(argv[1], \"a\"); if (f) { fprintf(f, \"stopped %d\\n\", p); fclose(f); }\n"
                + "        if (n < 256) got[n++] = p;\n"
                + "        continue;\n"
                + "      }\n"
                + "      kill(p, SIGCONT);\n"
                + "    }\n"
                + "  }\n"
                + "  return 0;\n}\n");
        assertEquals(0, run("gcc", "-O2", "-o", c.resolve("stopper").toString(), c.resolve("stopper.c").toString()));
        Files.setPosixFilePermissions(c, PosixFilePermissions.fromString("rwxr-xr-x"));
        serve();
        Path hers = ownDir(MALLORY, dir.resolve(MALLORY));
        assertEquals(0, run(UnixUsers.setpriv(MALLORY, "/usr/bin/python3", "-c", "import os,sys\nfor i in range(39):\n"
                + " os.symlink('./' * 2000 + ('l%d' % (i + 1) if i < 38 else '.'), os.path.join(sys.argv[1], 'l%d' % i))\n",
                hers.toString()).toArray(String[]::new)));
        Path stops = hers.resolve("stops");
        Path enough = hers.resolve("enough");
        Process watcher = new ProcessBuilder(UnixUsers.setpriv(MALLORY, c.resolve("stopper").toString(), stops.toString(),
                enough.toString())).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] exit 1\",\"cwd\":\"" + hers
                    + "\",\"output\":\"" + hers.resolve("l0/out.log") + "\"}";
            // One after another: each fails, and has its output read, on its own.
            for (int no = 1; no <= 6; no++) {
                String answer = as(MALLORY, socket(), submit);
                assertTrue(answer.contains("\"no\":" + no + "}"), answer);
                String failed = "job " + no + " failed";
                awaitQueue(q -> q.contains(failed));
            }
        } finally {
            Files.writeString(enough, "");
            if (!watcher.waitFor(10, TimeUnit.SECONDS)) {
                watcher.destroyForcibly();
            }
        }
        java.util.Set<String> stopped = Files.exists(stops) ? new java.util.TreeSet<>(Files.readAllLines(stops))
                : java.util.Set.of();
        assumeTrue(!stopped.isEmpty(), "her watcher caught no gpusched-runas --tail on this machine: nothing was attacked");
        String log = daemonLog();
        // The first one she stopped cost the loop its 2 s; her later failures' outputs are not read for a while.
        assertEquals(1, stopped.size(), "the loop waited 2 s for each of " + stopped + ": " + log);
        assertEquals(1, log.split("could not be read as " + MALLORY + " within 2 s", -1).length - 1, log);
    }

    @Test
    void anSrunClientThatKeepsItsGrantAndNeverSaysHowItEnded_losesItsGpuAtItsTimeout_andAtAnAdminsCancel() throws Exception {
        serve();
        Path hers = ownDir(MALLORY, dir.resolve(MALLORY));
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        // Her own client: takes the grant, runs nothing (so no process carries its token), never says
        // `exited`, and keeps its connection open, which exempts it from the idle timeout.
        String py = "import socket,json,sys,time\ns=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rb')\n"
                + "s.sendall((json.dumps({'v':1,'op':'srun','line':sys.argv[3],'cwd':sys.argv[2]})+'\\n').encode())\n"
                + "while True:\n l=json.loads(f.readline())\n if l.get('event')=='granted' or not l.get('ok',True): print(json.dumps(l), flush=True); break\n"
                + "time.sleep(150)\n";
        List<Process> clients = new ArrayList<>();
        try {
            for (String line : List.of("[vram=20G timeout=2s] python train.py", "[vram=20G] python train.py")) {
                Process p = new ProcessBuilder(UnixUsers.setpriv(MALLORY, "/usr/bin/python3", "-c", py, socket().toString(),
                        hers.toString(), line)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                clients.add(p);
                String granted = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                        java.nio.charset.StandardCharsets.UTF_8)).readLine();
                assertTrue(granted != null && granted.contains("\"granted\""), granted + daemonLog());
                // The one GPU (24000 MiB) is hers; the victim's job needs it.
                String no = line.contains("timeout") ? "1" : "3";
                String sub = UnixUsers.as(VICTIM, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=20G] true\",\"cwd\":\""
                        + victim + "\"}");
                assertTrue(sub.contains("\"ok\":true"), sub);
                if (no.equals("3")) {
                    assertEquals(0, ServeDaemon.cli("cancel", "--socket", socket().toString(), no).code(), "root cancels it");
                }
                String ended = no.equals("1") ? "✗ job 1 timeout" : "✗ job 3 cancelled";
                String next = no.equals("1") ? "✓ job 2 ok" : "✓ job 4 ok";
                awaitQueue(q -> q.contains(ended) && q.contains(next));
                assertTrue(p.isAlive(), "her client still holds its connection: the job ended without its word");
            }
            assertTrue(daemonLog().contains("job 1: stopped and SIGKILLed; its srun client has not said"), daemonLog());
        } finally {
            clients.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void aTmuxDirectoryAnotherUserMadeForTheVictimsUid_orALinkThere_doesNotFailTheirTtyJob() throws Exception {
        assumeTrue(run("sh", "-c", "command -v tmux") == 0, "tmux is not installed: [tty] jobs are not tested");
        serve();
        String uid = output("id", "-u", VICTIM);
        Path tmuxDir = Path.of("/tmp/tmux-" + uid);
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        Path hers = ownDir(MALLORY, dir.resolve(MALLORY));
        try {
            // /tmp is anyone's: she makes the directory tmux would use for the victim (tmux then refuses it
            // and the job fails at once), then a link there to a directory of hers.
            for (String plant : List.of("mkdir -m 0777 " + tmuxDir, "ln -s " + hers + " " + tmuxDir)) {
                run("rm", "-rf", tmuxDir.toString());
                assertEquals(0, run(UnixUsers.setpriv(MALLORY, "/bin/sh", "-c", plant).toArray(String[]::new)), plant);
                String answer = as(VICTIM, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G tty] echo in-my-terminal\","
                        + "\"cwd\":\"" + victim + "\"}");
                assertTrue(answer.contains("\"ok\":true"), answer);
                String no = answer.replaceAll(".*\"no\":([0-9]+).*", "$1");
                awaitQueue(q -> q.contains("job " + no + " ok") || q.contains("job " + no + " failed"));
                String log = Files.readString(victim.resolve("gpusched-" + no + ".log"));
                assertTrue(ServeDaemon.cli("queue", "--socket", socket().toString()).out().contains("✓ job " + no + " ok")
                        && log.contains("in-my-terminal"), plant + ": " + log + daemonLog());
                assertEquals(VICTIM, Files.getOwner(tmuxDir, java.nio.file.LinkOption.NOFOLLOW_LINKS).getName());
                assertTrue(daemonLog().contains("job " + no + "'s terminal: " + tmuxDir + " belonged to " + MALLORY), daemonLog());
            }
        } finally {
            run("sh", "-c", "rm -rf " + tmuxDir + " /tmp/.tmux-" + uid + ".moved-*");
        }
    }

    @Test
    void rootAskingToAttachToAUsersTerminal_isNotAttachedToHerTmuxServer_andFollowsTheLogInstead() throws Exception {
        assumeTrue(run("sh", "-c", "command -v tmux") == 0, "tmux is not installed: [tty] jobs are not tested");
        serve();
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        // A client attached to her server would run what she tells it to (detach-client -E) as root.
        String answer = as(VICTIM, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G tty] echo on-her-screen; sleep 10\","
                + "\"cwd\":\"" + victim + "\"}");
        assertTrue(answer.contains("\"ok\":true"), answer);
        String no = answer.replaceAll(".*\"no\":([0-9]+).*", "$1");
        awaitQueue(q -> q.contains("▶ job " + no + " "));
        ServeDaemon.Result attach = ServeDaemon.cli("attach", no, "--socket", socket().toString());
        assertTrue(attach.err().contains("job " + no + "'s terminal is " + VICTIM + "'s own tmux server")
                && attach.err().contains("sudo -u " + VICTIM + " tmux -L "), attach.err());
        assertTrue(attach.out().contains("on-her-screen"), attach.out() + attach.err());
        assertEquals(0, attach.code(), attach.err());
        assertTrue(ServeDaemon.cli("queue", "--all", "--socket", socket().toString()).out().contains("✓ job " + no + " ok"),
                daemonLog());
    }

    @Test
    void rootReadingHerJobsLog_seesHerEscapesAsText_andNeverAFileOfRootsSheLinkedInItsPlace() throws Exception {
        serve();
        Path home = ownDir(MALLORY, dir.resolve(MALLORY));
        Path secret = Files.writeString(dir.resolve("root-only.txt"), "root-only-content\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        // OSC 52 would write root's clipboard; the CR would hide what the line said before it.
        String printf = "printf 'before\\\\r\\\\033]52;c;cm0gLXJmIH4=\\\\007after\\\\n'";
        String first = as(MALLORY, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] " + printf + "\",\"cwd\":\""
                + home + "\"}");
        String no = first.replaceAll(".*\"no\":([0-9]+).*", "$1");
        String second = as(MALLORY, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] echo mine\",\"cwd\":\""
                + home + "\"}");
        String linked = second.replaceAll(".*\"no\":([0-9]+).*", "$1");
        Path sub = ownDir(MALLORY, home.resolve("sub"));
        String third = as(MALLORY, socket(), "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] echo mine\",\"cwd\":\""
                + sub + "\"}");
        String viaDir = third.replaceAll(".*\"no\":([0-9]+).*", "$1");
        awaitQueue(q -> q.contains("✓ job " + no + " ok") && q.contains("✓ job " + linked + " ok")
                && q.contains("✓ job " + viaDir + " ok"));
        ServeDaemon.Result shown = ServeDaemon.cli("logs", no, "--socket", socket().toString());
        assertEquals("before\\r\\e]52;c;cm0gLXJmIH4=\\x07after\n", shown.out(), shown.err());
        assertEquals(0, shown.code(), shown.err());
        // Her output, once ended, is hers to replace: with a link to a file only root can read.
        Path log = home.resolve("gpusched-" + linked + ".log");
        assertEquals(0, run("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups", "sh", "-c",
                "rm " + log + " && ln -s " + secret + " " + log));
        ServeDaemon.Result refused = ServeDaemon.cli("logs", linked, "--socket", socket().toString());
        assertFalse(refused.out().contains("root-only-content"), refused.out());
        assertTrue(refused.err().contains("cannot read " + log + ": it is a symbolic link"), refused.err());
        // Or the directory on its path turned into a link to one of root's, holding a file of that name.
        Path rootDir = Files.createDirectories(dir.resolve("root-dir"));
        Files.writeString(rootDir.resolve("gpusched-" + viaDir + ".log"), "root-only-content\n");
        assertEquals(0, run("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups", "sh", "-c",
                "mv " + sub + " " + home.resolve("moved") + " && ln -s " + rootDir + " " + sub));
        ServeDaemon.Result throughDir = ServeDaemon.cli("logs", viaDir, "--socket", socket().toString());
        assertFalse(throughDir.out().contains("root-only-content"), throughDir.out());
        assertTrue(throughDir.err().contains("it belongs to root, not to the job's owner"), throughDir.err());
        // Her own view of her own job is unchanged: the bytes as the job wrote them.
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        UnixUsers.Result own = cliAs(MALLORY, cp, home, Map.of(), "022", "logs", no,
                "--socket", socket().toString());
        assertEquals("before\r\u001b]52;c;cm0gLXJmIH4=\u0007after\n", own.out(), own.err());
    }

    @Test
    void aSocketDirectoryAnotherUserMade_isRefusedByTheUsersDaemon_andItsSocketByTheirClient() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(0, run("chmod", "+t", tmp.toString()));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path planted = tmp.resolve("gpusched-" + VICTIM);
        Path heard = dir.resolve("heard.txt");
        assertEquals(0, run("touch", heard.toString()));
        assertEquals(0, run("chown", MALLORY, heard.toString()));
        // Mallory's fake daemon where the victim's would listen: it answers hello and writes down what it hears.
        String fake = "import os,socket,sys\nd=sys.argv[1]\nos.makedirs(d,exist_ok=True); os.chmod(d,0o777)\n"
                + "s=socket.socket(socket.AF_UNIX); s.bind(d+'/gpusched.sock'); os.chmod(d+'/gpusched.sock',0o777); s.listen()\n"
                + "print('up',flush=True)\n"
                + "while True:\n c,_=s.accept(); f=c.makefile('rwb')\n for line in f:\n"
                + "  open(sys.argv[2],'ab').write(line)\n"
                + "  f.write(b'{\"v\":1,\"ok\":true,\"user\":\"" + VICTIM + "\",\"no\":4242}\\n'); f.flush()\n";
        Process server = new ProcessBuilder("/usr/bin/setpriv", "--reuid=" + MALLORY, "--regid=" + MALLORY, "--init-groups",
                "/usr/bin/python3", "-c", fake, planted.toString(), heard.toString()).redirectErrorStream(true).start();
        try {
            assertEquals("up", new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8)).readLine());
            String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
            Path home = ownDir(VICTIM, dir.resolve(VICTIM));
            List<String> java = List.of("/usr/bin/setpriv", "--reuid=" + VICTIM, "--regid=" + VICTIM, "--init-groups",
                    "/usr/bin/env", "-u", "XDG_RUNTIME_DIR", "-u", "GPUSCHED_SOCKET", "GS_API_TOKEN=hunter2-token",
                    ServeDaemon.java(), "-Djava.io.tmpdir=" + tmp, "-XX:TieredStopAtLevel=1", "-cp", cp, Main.class.getName());
            List<String> submit = new ArrayList<>(java);
            submit.addAll(List.of("submit", "--vram", "1G", "--", "true"));
            ServeDaemon.Result client = ServeDaemon.result(new ProcessBuilder(submit).directory(home.toFile()).start());
            assertEquals(1, client.code(), client.toString());
            assertFalse(client.out().contains("4242"), client.toString());
            assertTrue(client.err().contains(planted.resolve("gpusched.sock") + " is served by user " + MALLORY
                    + ", not by you (" + VICTIM + ") or root; nothing was sent"), client.err());
            assertEquals("", Files.readString(heard), "the fake daemon heard the victim");

            List<String> serve = new ArrayList<>(java);
            serve.addAll(List.of("serve", "--sim", "1", "--log-dir", home.resolve("logs").toString()));
            ServeDaemon.Result refused = ServeDaemon.result(new ProcessBuilder(serve).directory(home.toFile()).start());
            assertNotEquals(0, refused.code());
            assertTrue(refused.err().contains("socket directory " + planted + " belongs to uid " + output("id", "-u", MALLORY)
                    + " (" + MALLORY + "), not to you"), refused.err());
        } finally {
            server.destroyForcibly().waitFor();
        }
    }

    @Test
    void aRootDaemonRefusesALogDirectoryAnotherUserOwns_andRunsNoForgedLine() throws Exception {
        Path mark = dir.resolve("forged-ran");
        Path theirs = ownDir(MALLORY, dir.resolve("mallory-logs"));
        String forged = "{\"key\":\"s1\",\"event\":\"submitted\",\"no\":1,\"command\":\"id -u > " + mark + "\",\"vram\":1024,"
                + "\"gpus\":1,\"timeout_ns\":null,\"retries\":0,\"source\":\"api\",\"owner\":\"root\",\"cwd\":\"/\","
                + "\"submitted_at_ms\":1}\n";
        Files.writeString(theirs.resolve("journal.jsonl"), forged);
        assertEquals(0, run("chown", MALLORY, theirs.resolve("journal.jsonl").toString()));
        ServeDaemon.Result r = ServeDaemon.cli("serve", "--sim", "1", "--poll", "0.1", "--socket",
                dir.resolve("r.sock").toString(), "--log-dir", theirs.toString());
        assertEquals(2, r.code(), r.toString());
        assertEquals("gpusched: " + theirs + " belongs to uid " + output("id", "-u", MALLORY) + " (" + MALLORY + "), not root:"
                + " a root scheduler trusts only state that no other user can change; use a root-owned directory such as"
                + " /var/lib/gpusched (--log-dir), or chown root " + theirs + "\n", r.err());
        assertFalse(Files.exists(mark), "the forged line ran");

        // Root's, but writable by a group: refused as well.
        Path groupWritable = Files.createDirectories(dir.resolve("group-logs"));
        Files.setPosixFilePermissions(groupWritable, PosixFilePermissions.fromString("rwxrwxr-x"));
        ServeDaemon.Result g = ServeDaemon.cli("serve", "--sim", "1", "--socket", dir.resolve("g.sock").toString(),
                "--log-dir", groupWritable.toString());
        assertEquals(2, g.code(), g.toString());
        assertTrue(g.err().contains(groupWritable + " is writable by its group"), g.err());
    }

    @Test
    void theDaemonNeverProbesAUsersPathAsRoot_soAnswersDoNotTellWhatRootCanSee() throws Exception {
        Path secret = Files.createDirectories(dir.resolve("root-only"));
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rwx------"));
        Files.createDirectories(secret.resolve("exists"));
        serve();
        Path home = ownDir(MALLORY, dir.resolve(MALLORY));
        List<String> answers = new ArrayList<>();
        for (String d : List.of("exists", "missing")) {
            String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] true\",\"cwd\":\"" + home + "\",\"output\":\""
                    + secret.resolve(d).resolve("out.log") + "\"}";
            answers.add(as(MALLORY, socket(), submit).replaceAll("\"no\":\\d+", "\"no\":N"));
        }
        assertEquals(answers.get(0), answers.get(1), "the answers differ by whether root sees the directory");
        assertEquals("{\"v\":1,\"ok\":true,\"no\":N}", answers.get(0));
        awaitQueue(q -> q.contains("job 1 failed") && q.contains("job 2 failed"));
        // The tmux session name carries the job's number; the rest must not tell the two apart.
        String logs1 = as(MALLORY, socket(), "{\"v\":1,\"op\":\"logs\",\"no\":1}").replace("exists", "X")
                .replaceAll("\"tty\":\"[^\"]*\"", "tty");
        String logs2 = as(MALLORY, socket(), "{\"v\":1,\"op\":\"logs\",\"no\":2}").replace("missing", "X")
                .replaceAll("\"tty\":\"[^\"]*\"", "tty");
        assertEquals(logs1, logs2);
        String log = daemonLog();
        assertTrue(log.contains("job 1: cannot open output " + secret.resolve("exists/out.log") + " as " + MALLORY
                + ": Permission denied"), log);
        assertTrue(log.contains("job 2: cannot open output " + secret.resolve("missing/out.log") + " as " + MALLORY
                + ": Permission denied"), log);
    }

    /**
     * Mallory asks for the number the victim's next job will get, before it has it, over and over on
     * several connections: {@code cancel N} and {@code logs N}. While no job had it, the owner check passed
     * (no owner), and the cancel or the output lookup came in a later step of the loop, by when the
     * victim's job could hold the number: her job was cancelled, and its output's path named to him.
     */
    @Test
    void theNextNumberAskedForBeforeTheVictimsJobHasIt_neverCancelsItNorNamesItsOutput() throws Exception {
        serve();
        Path victim = ownDir(VICTIM, dir.resolve(VICTIM));
        Path mallory = ownDir(MALLORY, dir.resolve(MALLORY));
        int rounds = 4;
        // Each thread asks for the number it is on until the victim's job holds it (forbidden), then the next.
        String py = "import socket,sys,json,threading\n"
                + "path,rounds=sys.argv[1],int(sys.argv[2]); lock=threading.Lock(); at=[1]; odd=[]; asked=[0]\n"
                + "def run(op):\n"
                + " s=socket.socket(socket.AF_UNIX); s.connect(path); f=s.makefile('rb')\n"
                + " while True:\n"
                + "  with lock: n=at[0]\n"
                + "  if n>rounds: return\n"
                + "  s.sendall((json.dumps({'v':1,'op':op,'no':n})+'\\n').encode()); a=json.loads(f.readline())\n"
                + "  with lock: asked[0]+=1\n"
                + "  if not a['ok'] and a['error']['code']=='forbidden':\n"
                + "   with lock: at[0]=max(at[0],n+1)\n"
                + "  elif a.get('outcome')!='not_found' and (op!='logs' or a.get('paths')!=[] or a.get('state')!='unknown'):\n"
                + "   with lock: odd.append(a)\n"
                + "ts=[threading.Thread(target=run,args=(op,)) for op in ['cancel','logs']*3]\n"
                + "[t.start() for t in ts]; [t.join() for t in ts]\n"
                + "print(json.dumps({'asked':asked[0],'odd':odd}))\n";
        Process flood = new ProcessBuilder(UnixUsers.setpriv(MALLORY, "/usr/bin/python3", "-c", py, socket().toString(),
                String.valueOf(rounds))).directory(mallory.toFile()).redirectErrorStream(true).start();
        try {
            for (int no = 1; no <= rounds; no++) {
                String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] sleep 60\",\"cwd\":\"" + victim
                        + "\",\"output\":\"private-" + no + ".log\"}";
                assertEquals("{\"v\":1,\"ok\":true,\"no\":" + no + "}", as(VICTIM, socket(), submit));
                Thread.sleep(300); // his threads move on to the next number once they see this one is hers
            }
            assertTrue(flood.waitFor(60, TimeUnit.SECONDS), "his requests never saw the victim's jobs");
            String said = new String(flood.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(said.endsWith("\"odd\": []}"), "what he got for numbers no job had when he asked: " + said);
            String queue = ServeDaemon.cli("queue", "--socket", socket().toString(), "--all").out();
            assertFalse(queue.contains("cancelled"), "he cancelled one of her jobs: " + queue);
            assertEquals(rounds, queue.split("sleep 60", -1).length - 1, queue);
        } finally {
            flood.destroyForcibly();
        }
    }

    /**
     * A number the journal no longer holds (its job ended long ago and compaction dropped it, leaving a
     * file in the log directory) is no one's: another user's {@code logs} and {@code cancel} of it are
     * answered as for a number no job ever had, naming no file and signalling nothing; root still gets
     * the leftover named.
     */
    @Test
    void aJobTheJournalNoLongerHolds_isAnsweredAsNoJobToAnotherUser_namingNoFileOfIt() throws Exception {
        Path state = Files.createDirectories(logs());
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        // What compaction leaves once the victim's job 5 has ended and been dropped: the next number, no line of it.
        Path journal = state.resolve("journal.jsonl");
        Files.writeString(journal, "{\"key\":\"journal\",\"event\":\"compacted\",\"next_no\":6,\"next_run\":3,\"at_ms\":1}\n");
        Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rw-------"));
        Path leftover = Files.writeString(state.resolve("job005_gpu0.log"), "gpusched-runas: cannot start the victim's job\n");
        serve();
        String unknown = "{\"v\":1,\"ok\":true,\"paths\":[],\"state\":\"unknown\",\"tty\":\"T\"}";
        for (int no : List.of(5, 6, 99, 2147483647)) {
            String logs = as(MALLORY, socket(), "{\"v\":1,\"op\":\"logs\",\"no\":" + no + "}")
                    .replaceAll("\"tty\":\"[^\"]*\"", "\"tty\":\"T\"");
            assertEquals(unknown, logs, "logs " + no);
            assertEquals("{\"v\":1,\"ok\":true,\"outcome\":\"not_found\"}",
                    as(MALLORY, socket(), "{\"v\":1,\"op\":\"cancel\",\"no\":" + no + "}"), "cancel " + no);
        }
        String bad = as(MALLORY, socket(), "{\"v\":1,\"op\":\"logs\",\"no\":-5}");
        assertTrue(bad.contains("\"code\":\"bad_request\""), bad);
        assertTrue(as("root", socket(), "{\"v\":1,\"op\":\"logs\",\"no\":5}").contains(leftover.toString()),
                "root reads every job's logs");
        assertEquals("gpusched-runas: cannot start the victim's job\n", Files.readString(leftover));
    }
}
