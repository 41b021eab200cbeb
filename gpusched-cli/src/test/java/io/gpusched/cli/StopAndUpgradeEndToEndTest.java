package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping {@code gpusched serve} (SIGTERM, as {@code systemctl stop} or {@code restart} sends it, or
 * Ctrl-C) stops the daemon and leaves its running jobs running; the next daemon on the same state takes
 * them up and records how they really ended, once. The upgrade: the first daemon runs from one install
 * directory, the second from another holding a different version, the first's deleted in between, as a
 * package upgrade replaces it. {@code --stop-jobs-on-exit} keeps the old stop, which ends the jobs too.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StopAndUpgradeEndToEndTest {
    @TempDir
    Path dir;

    private final List<Process> daemons = new ArrayList<>();

    /**
     * What a daemon killed or stopped half-way through a failed test left running is no living daemon's child:
     * its job, and the job's monitor, which would write the job's exit file under {@link #dir} as it ends.
     */
    @AfterEach
    void stopEverything() throws InterruptedException {
        daemons.forEach(d -> {
            if (d.isAlive()) {
                ServeDaemon.stopLeavingNoJob(d, java.time.Duration.ofSeconds(15));
            }
        });
        ProcSessions.killAll(Ledger.read(dir.resolve("ledger"), "job").stream().map(Ledger.Entry::pid).toList());
        RunsLeftBehind.end(dir.resolve("logs"));
    }

    @Test
    void sigtermLeavesTheRunningJobRunning_andTheNextVersionTakesItUpAndRecordsItsRealEndOnceMeasured() throws Exception {
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Path go = dir.resolve("go");
        String oldClasspath = install(dir.resolve("install-1"), "upgrade-test-1");
        String newClasspath = install(dir.resolve("install-2"), "upgrade-test-2");
        // --version goes on with the revision, build date and Java (issue #25): the version is its first word after gpusched.
        assertTrue(version(oldClasspath).startsWith("gpusched upgrade-test-1 ("), version(oldClasspath));
        assertTrue(version(newClasspath).startsWith("gpusched upgrade-test-2 ("), version(newClasspath));

        Process first = serve(oldClasspath, "first.log");
        // 3000 MiB of simulated GPU memory until told to go, then exit status 3: a failure only the job knows of.
        String body = Ledger.recordTerm("job") + "; $GPUSCHED_SIMJOB --vram 3000 --ramp 0 --hold 600 & sj=$!; while [ ! -e "
                + go + " ]; do sleep 0.05; done; kill $sj; wait $sj; (exit 3)";
        ServeDaemon.Result submitted = ServeDaemon.cli("submit", "--socket", socket(), "--vram", "4G", "--",
                Ledger.wrap(ledger, "job", body));
        assertEquals(new ServeDaemon.Result(0, "submitted job 1\n", ""), submitted);
        awaitLog("first.log", "job 1 vram now");
        long session = Ledger.read(ledger, "job").get(0).pid();

        assertEquals(130, terminate(first), "a stopped daemon exits as an interrupted run does");
        String firstLog = Files.readString(dir.resolve("first.log"));
        assertTrue(firstLog.contains("gpusched upgrade-test-1 serving "), firstLog);
        assertTrue(firstLog.contains("stopping: 1 running job keeps running; the next gpusched serve on this state takes it up"),
                firstLog);
        assertFalse(firstLog.contains("terminating"), firstLog);
        assertTrue(firstLog.contains("stopped — 0 jobs finished in this run; the running one goes on, for the next gpusched"
                + " serve (exit 130)"), firstLog);
        assertTrue(ProcSessions.anyAlive(List.of(session)), "the job outlived its daemon");
        JournalLines.Parsed journal = JournalLines.read(dir.resolve("logs/journal.jsonl"));
        assertEquals("started", lastEvent(journal, "s1"), "journaled as running, neither interrupted nor done: "
                + journal.lines());

        // The upgrade: the old install goes, the new one starts on the same state.
        deleteTree(dir.resolve("install-1"));
        serve(newClasspath, "second.log");
        awaitLog("second.log", "job 1 is still running from a previous scheduler (pgid " + session + ") — taken up again");
        int seen = Files.readString(dir.resolve("second.log")).indexOf("taken up again");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             Files.readString(dir.resolve("second.log")).indexOf("job 1 vram now", seen) < 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "the second daemon never measured the job: "
                    + Files.readString(dir.resolve("second.log")));
        }
        assertTrue(ServeDaemon.cli("queue", "--socket", socket()).out().contains("▶ job 1 "), "it is running under the second");
        Files.createFile(go);
        awaitLog("second.log", "job 1 finished [");

        String secondLog = Files.readString(dir.resolve("second.log"));
        assertTrue(secondLog.contains("gpusched upgrade-test-2 serving "), secondLog);
        Matcher finished = Pattern.compile("job 1 finished \\[EXIT 3\\] in [0-9.]+s — peak vram gpu0:([0-9]+) MiB").matcher(secondLog);
        assertTrue(finished.find(), "its real exit status, measured: " + secondLog);
        assertEquals(3000, Long.parseLong(finished.group(1)), secondLog);
        List<Ledger.Entry> ran = Ledger.read(ledger, "job");
        assertEquals(List.of("start", "end"), ran.stream().map(Ledger.Entry::kind).toList(), "ran once, never signalled: " + ran);
        assertEquals(3, ran.get(1).rc().getAsInt());
        JournalLines.Parsed after = JournalLines.read(dir.resolve("logs/journal.jsonl"));
        List<JournalLines.Line> done = after.of("s1", "done");
        assertEquals(1, done.size(), "it ends once: " + after.lines());
        assertEquals("failed", done.get(0).field("status").orElseThrow());
        assertEquals("3", done.get(0).field("returncode").orElseThrow());
        assertEquals(List.of(), after.of("s1", "interrupted"), "never counted as interrupted");
        assertTrue(Files.readAllLines(dir.resolve("logs/journal.jsonl")).stream()
                .anyMatch(l -> l.contains("\"event\":\"done\"") && l.contains("\"peak_mib\":{\"0\":3000}")), "the peak is journaled");
        assertEquals(1, after.lines().stream().filter(l -> l.key().equals("s1") && l.event().equals("started")).count(),
                "started once, by the first daemon");
        // The transcript, for the record (issue #23's closing note quotes it).
        System.out.println("--- first daemon, from install-1 (deleted since) ---\n" + firstLog
                + "--- second daemon ---\n" + Files.readString(dir.resolve("second.log")));
    }

    @Test
    void stopJobsOnExitStopsTheRunningJobsToo_andTheyRunAgainOnRestart() throws Exception {
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Path quick = dir.resolve("quick");
        Process daemon = serve(System.getProperty("java.class.path"), "daemon.log", "--stop-jobs-on-exit");
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--",
                Ledger.wrap(ledger, "job", "while [ ! -e " + quick + " ]; do sleep 0.05; done")).code());
        awaitLog("daemon.log", "job 1 started");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); Ledger.read(ledger, "job").isEmpty(); Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, "the job never started");
        }
        long session = Ledger.read(ledger, "job").get(0).pid();

        assertEquals(130, terminate(daemon));
        String log = Files.readString(dir.resolve("daemon.log"));
        assertTrue(log.contains("Ctrl-C or SIGTERM stops it and its running jobs, which run again on restart"), log);
        assertTrue(log.contains("WARN  interrupted — terminating 1 running job"), log);
        assertFalse(ProcSessions.anyAlive(List.of(session)), "the job was stopped with its daemon");
        assertEquals("interrupted", lastEvent(JournalLines.read(dir.resolve("logs/journal.jsonl")), "s1"));

        Files.createFile(quick);
        serve(System.getProperty("java.class.path"), "again.log");
        awaitLog("again.log", "job 1 finished [OK]");
        assertEquals(2, Ledger.count(Ledger.read(ledger, "job"), "start"), "it ran again");
    }

    @Test
    void aRootDaemonsJobRunningAsItsSubmitterOutlivesTheStop_andTheNextDaemonRecordsHerExitStatus() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "needs root to run a job as another user");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd (package passwd)");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (package util-linux)");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3 for her client");
        boolean created = UnixUsers.run("id", USER) != 0;
        if (created) {
            assertEquals(0, UnixUsers.userAdmin("/usr/sbin/useradd", "--no-create-home", "--user-group", "--shell", "/bin/sh", USER));
        }
        try {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Path home = UnixUsers.ownDir(USER, dir.resolve(USER));
            Process first = serve(System.getProperty("java.class.path"), "first.log");
            String answer = UnixUsers.as(USER, dir.resolve("run/gpusched.sock"), "{\"v\":1,\"op\":\"submit\",\"line\":"
                    + "\"[vram=1G] /usr/bin/id -un > who; echo $$ > pid; while [ ! -e go ]; do sleep 0.05; done; exit 5\","
                    + "\"cwd\":\"" + home + "\"}");
            assertEquals("{\"v\":1,\"ok\":true,\"no\":1}", answer);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !Files.exists(home.resolve("pid")) || Files.readString(home.resolve("pid")).isBlank(); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, "her job never ran: " + Files.readString(dir.resolve("first.log")));
            }
            long shell = Long.parseLong(Files.readString(home.resolve("pid")).strip());

            String drain = UnixUsers.as(USER, dir.resolve("run/gpusched.sock"), "{\"v\":1,\"op\":\"drain\"}");
            assertTrue(drain.contains("\"code\":\"forbidden\"") && drain.contains("for admins"), drain);
            assertEquals(130, terminate(first));
            String firstLog = Files.readString(dir.resolve("first.log"));
            assertTrue(firstLog.contains("stopping: 1 running job keeps running"), firstLog);
            assertTrue(ProcessHandle.of(shell).map(ProcessHandle::isAlive).orElse(false), "her job outlived the daemon");

            serve(System.getProperty("java.class.path"), "second.log");
            awaitLog("second.log", "job 1 is still running from a previous scheduler");
            Files.writeString(home.resolve("go"), "");
            awaitLog("second.log", "job 1 finished [EXIT 5]");
            assertEquals(USER, Files.readString(home.resolve("who")).strip(), "it ran as her");
            JournalLines.Parsed journal = JournalLines.read(dir.resolve("logs/journal.jsonl"));
            List<JournalLines.Line> done = journal.of("s1", "done");
            assertEquals(1, done.size(), journal.lines().toString());
            assertEquals("5", done.get(0).field("returncode").orElseThrow());
            assertEquals(1, journal.of("s1", "started").size(), "started once: " + journal.lines());
        } finally {
            daemons.forEach(d -> {
                if (d.isAlive()) {
                    ServeDaemon.stopLeavingNoJob(d, java.time.Duration.ofSeconds(15));
                }
            });
            if (created) {
                UnixUsers.userAdmin("/usr/sbin/userdel", USER);
            }
        }
    }

    @Test
    void drainStartsNothingMore_theDaemonExits0OnceTheRunningJobEnds_andTheQueuedJobRunsUnderTheNext() throws Exception {
        Path go = dir.resolve("go");
        Path second = dir.resolve("second-ran");
        Process daemon = serve(System.getProperty("java.class.path"), "daemon.log");
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--",
                "while [ ! -e " + go + " ]; do sleep 0.05; done").code());
        awaitLog("daemon.log", "job 1 started");

        assertEquals(new ServeDaemon.Result(0, "draining: the daemon starts no job from now on and exits once its 1 running"
                + " job ends (gpusched queue shows them); queued jobs wait in its journal for the next gpusched serve\n", ""),
                ServeDaemon.cli("drain", "--socket", socket()));
        assertEquals(new ServeDaemon.Result(0, "submitted job 2\n", ""), ServeDaemon.cli("submit", "--socket", socket(),
                "--vram", "1G", "--", "touch " + second), "a drained daemon still takes submissions, for the next");
        Thread.sleep(1000); // ten rounds
        assertTrue(daemon.isAlive(), "it waits for its running job");
        assertFalse(Files.exists(second), "nothing starts while it drains");
        Files.createFile(go);
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "it exits once its job ended");
        assertEquals(0, daemon.exitValue(), "a drain is a stop as asked");
        String log = Files.readString(dir.resolve("daemon.log"));
        assertTrue(log.contains("draining (gpusched drain): no job starts from now on; this ends once the 1 running job ends"),
                log);
        assertTrue(log.contains("job 1 finished [OK]") && log.contains("drained — 1 job finished in this run; whatever is queued runs on the next start"), log);
        assertFalse(log.contains("job 2 started"), log);

        serve(System.getProperty("java.class.path"), "next.log");
        awaitLog("next.log", "job 2 finished [OK]");
        assertTrue(Files.exists(second));
    }

    @Test
    void whileItDrains_queueListsEveryQueuedJob_theOnesSubmittedMeanwhileToo_asWaitingForTheNextDaemon() throws Exception {
        Path go = dir.resolve("go");
        serve(System.getProperty("java.class.path"), "daemon.log");
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--",
                "while [ ! -e " + go + " ]; do sleep 0.05; done").code());
        awaitLog("daemon.log", "job 1 started");
        // Too big to share the GPU with job 1: it waits for headroom before the drain.
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "22G", "--", "true").code());
        assertEquals(0, ServeDaemon.cli("drain", "--socket", socket()).code());
        // Fits beside job 1: only the drain keeps it waiting.
        assertEquals(new ServeDaemon.Result(0, "submitted job 3\n", ""),
                ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--", "echo third"));
        String waits = "waits: the daemon is draining: it starts no job until the next gpusched serve";
        String queue = "";
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(100)) {
            queue = ServeDaemon.cli("queue", "--socket", socket()).out();
            // Before: job 2 kept the last plan's 'needs 1 GPU with ≥ ... headroom', job 3 was in no list.
            if (queue.lines().anyMatch(l -> l.contains("job 2 ") && l.contains(waits))
                    && queue.lines().anyMatch(l -> l.contains("job 3 ") && l.contains(waits))) {
                break;
            }
            assertTrue(System.nanoTime() < end, "the queue while draining:\n" + queue);
        }
        assertTrue(queue.startsWith("1 running, 2 pending"), queue);
        Files.createFile(go);
    }

    @Test
    void aStopDuringACancelSaysTheCancelledJobIsSeenToItsEnd_notThatNoJobRuns() throws Exception {
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Process daemon = serve(System.getProperty("java.class.path"), "daemon.log");
        // Ignores SIGTERM: the cancel ends it only by the SIGKILL after --kill-grace (1 s here).
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--",
                Ledger.wrap(ledger, "job", "trap '' TERM; while :; do sleep 0.05; done")).code());
        awaitLog("daemon.log", "job 1 started");
        assertEquals(0, ServeDaemon.cli("cancel", "--socket", socket(), "1").code());
        awaitLog("daemon.log", "job 1 CANCELLED");
        assertEquals(130, terminate(daemon));
        String log = Files.readString(dir.resolve("daemon.log"));
        // Before: 'stopping: no job is running', then the stop waited the grace for that job.
        assertTrue(log.contains("stopping: 1 job being cancelled or timed out is seen to its end first (SIGKILL after the"
                + " kill grace); no other job is running"), log);
        assertTrue(log.contains("job 1 finished [CANCELLED]"), log);
        // Before: '...; the running ones go on, for the next gpusched serve', where none did.
        assertTrue(log.contains("stopped — 1 job finished in this run; none was left running (exit 130)"), log);
    }

    @Test
    void aCancelOutlivesADaemonKilledInItsGrace_theNextDaemonKillsTheJobAtItsEndAndRecordsItCancelled() throws Exception {
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        // A grace long enough to kill the daemon inside it; the job ignores SIGTERM, so only SIGKILL ends it.
        Process first = serve(System.getProperty("java.class.path"), "first.log", "--kill-grace", "4");
        assertEquals(0, ServeDaemon.cli("submit", "--socket", socket(), "--vram", "1G", "--",
                Ledger.wrap(ledger, "job", "trap '' TERM; while :; do sleep 0.05; done")).code());
        awaitLog("first.log", "job 1 started");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); Ledger.read(ledger, "job").isEmpty(); Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, "the job never started");
        }
        long session = Ledger.read(ledger, "job").get(0).pid();
        long cancelled = System.nanoTime();
        assertEquals(0, ServeDaemon.cli("cancel", "--socket", socket(), "1").code());
        assertEquals(0, new ProcessBuilder("kill", "-KILL", String.valueOf(first.pid())).start().waitFor());
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        assertTrue(ProcSessions.anyAlive(List.of(session)), "the job ignores SIGTERM and outlived the daemon in its grace");
        JournalLines.Parsed journal = JournalLines.read(dir.resolve("logs/journal.jsonl"));
        assertEquals("stopping", lastEvent(journal, "s1"), "the cancel is journaled before its job ends: " + journal.lines());
        assertEquals("cancelled", journal.of("s1", "stopping").get(0).field("reason").orElseThrow());

        // Before: the next daemon took the job up as an ordinary running job, which ran on for ever.
        Path events = dir.resolve("second.events.jsonl");
        serve(System.getProperty("java.class.path"), "second.log", "--kill-grace", "4", "--events", events.toString());
        awaitLog("second.log", "job 1 was being cancelled when the last scheduler ended: the stop goes on, SIGKILL in");
        awaitLog("second.log", "job 1 finished [CANCELLED]");
        long took = System.nanoTime() - cancelled;
        assertTrue(took >= TimeUnit.SECONDS.toNanos(4), "SIGKILL waited out the grace the cancel began: " + took / 1_000_000 + " ms");
        // Before: a script following the second daemon's events saw job 1 end cancelled with no stop before it.
        List<String> stopping = Files.readAllLines(events).stream().filter(l -> l.startsWith("{\"event\":\"job_stopping\""))
                .toList();
        assertEquals(1, stopping.size(), "once, for the stop taken up: " + stopping);
        assertTrue(stopping.get(0).contains("\"no\":1,\"why\":\"cancelled\","), stopping.get(0));
        assertTrue(stopping.get(0).endsWith(",\"resumed\":true}"), stopping.get(0));
        assertFalse(Files.readString(dir.resolve("second.log")).contains("CANCELLED by user — SIGTERM"),
                "the warning says the stop goes on; no second line claims a SIGTERM this daemon did not send");
        assertFalse(ProcSessions.anyAlive(List.of(session)), "the cancelled job is gone");
        JournalLines.Parsed after = JournalLines.read(dir.resolve("logs/journal.jsonl"));
        List<JournalLines.Line> done = after.of("s1", "done");
        assertEquals(1, done.size(), "it ends once: " + after.lines());
        assertEquals("cancelled", done.get(0).field("status").orElseThrow());
        assertEquals(List.of("start"), Ledger.read(ledger, "job").stream().map(Ledger.Entry::kind).toList(),
                "started once, never run again, killed: " + Ledger.read(ledger, "job"));
    }

    /** This test's user: the prefix keeps it apart from other tests' users. */
    private static final String USER = "gs-st-ada";

    private String socket() {
        return dir.resolve("run/gpusched.sock").toString();
    }

    /** {@code gpusched serve} from {@code classpath} on this test's socket, log directory and simulated GPU. */
    private Process serve(String classpath, String logName, String... more) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                classpath, Main.class.getName(), "serve", "--sim", "1", "--poll", "0.1", "-v",
                "--socket", socket(), "--log-dir", dir.resolve("logs").toString()));
        if (!List.of(more).contains("--kill-grace")) {
            argv.addAll(List.of("--kill-grace", "1"));
        }
        argv.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(dir.resolve(logName).toFile());
        // Simulated jobs report their memory here: one place for both daemons, as a real GPU is.
        pb.environment().put("GPUSCHED_SIM_DIR", Files.createDirectories(dir.resolve("sim")).toString());
        Process p = pb.start();
        daemons.add(p);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
             ServeDaemon.cli("queue", "--socket", socket()).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && p.isAlive(), "the daemon did not come up: " + Files.readString(dir.resolve(logName)));
        }
        return p;
    }

    private static int terminate(Process daemon) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(daemon.pid())).start().waitFor());
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "the daemon did not stop");
        return daemon.exitValue();
    }

    private void awaitLog(String logName, String text) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); ; Thread.sleep(50)) {
            String log = Files.readString(dir.resolve(logName));
            if (log.contains(text)) {
                return;
            }
            assertTrue(System.nanoTime() < end, "never in " + logName + ": '" + text + "':\n" + log);
        }
    }

    private static String lastEvent(JournalLines.Parsed journal, String key) {
        List<JournalLines.Line> of = journal.lines().stream().filter(l -> l.key().equals(key)).toList();
        return of.get(of.size() - 1).event();
    }

    /**
     * An install of this build in a directory of its own, as an unpacked release would be: every
     * classpath entry copied there, gpusched's command-line classes as a jar whose manifest says
     * {@code version}, so two installs are two versions ({@code gpusched --version} tells them apart).
     *
     * @return its classpath
     */
    private static String install(Path to, String version) throws IOException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path from = Path.of(e);
            if (!Files.exists(from)) {
                continue;
            }
            Path copy = to.resolve("lib" + n++ + (Files.isDirectory(from) ? "" : ".jar"));
            if (Files.isRegularFile(from.resolve("io/gpusched/cli/Main.class"))) {
                copy = to.resolve("gpusched-cli-" + version + ".jar");
                jar(from, copy, version);
            } else {
                Files.createDirectories(to);
                try (Stream<Path> files = Files.walk(from)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.copy(f, copy.resolve(from.relativize(f).toString()));
                    }
                }
            }
            entries.add(copy.toString());
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static void jar(Path classes, Path jar, String version) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, version);
        Files.createDirectories(jar.getParent());
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    private static String version(String classpath) throws Exception {
        Process p = new ProcessBuilder(ServeDaemon.java(), "-cp", classpath, Main.class.getName(), "--version")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(f);
            }
        }
    }
}
