package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.as;
import static io.gpusched.cli.UnixUsers.ownDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code $GPUSCHED_SIMJOB} under a root daemon ({@code serve --sim}), run by real Unix users: the program
 * is where they can run it even when the daemon's own copy is in a directory of root's alone, each
 * user's job reports to a directory of their own that nobody else can read or write, and a report naming
 * another user's process does not count. Needs root, useradd, setpriv and python3.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimulatedJobForEveryUserTest {
    // Users of this test's own (MultiUserServeTest has gs-alice and gs-bob; the classes may run side by side).
    private static final String ALICE = "gs-sj-alice";
    private static final String BOB = "gs-sj-bob";

    @TempDir
    Path dir;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = UnixUsers.ForClass.created(ALICE, BOB);

    /**
     * The daemon's class path with the testkit's classes (and so its simjob) copied into a directory only
     * root can enter, as a jar installed under /root or a build in root's home puts them.
     */
    private String classPathOfRootsOwn() throws Exception {
        Path rootOnly = Files.createDirectories(dir.resolve("root-only"));
        Files.setPosixFilePermissions(rootOnly, PosixFilePermissions.fromString("rwx------"));
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path from = Path.of(e);
            if (!e.contains("gpusched-testkit") || !Files.isDirectory(from)) {
                entries.add(e);
                continue;
            }
            Path to = rootOnly.resolve("testkit-classes");
            try (Stream<Path> files = Files.walk(from)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Path t = to.resolve(from.relativize(f).toString());
                    Files.copy(f, t, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            entries.add(to.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private void awaitQueue(String socket, java.util.function.Predicate<String> test) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
             !test.test(ServeDaemon.cli("queue", "--socket", socket).out()); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, ServeDaemon.cli("queue", "--socket", socket).out()
                    + Files.readString(dir.resolve("daemon.log")));
        }
    }

    @Test
    void aUsersSimulatedJobRunsAndIsMeasured_inADirectoryOfHersThatNoOtherUserCanReadOrChargeTo() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path socket = dir.resolve("run/gpusched.sock");
        String s = socket.toString();
        Process daemon = new ProcessBuilder(ServeDaemon.java(), "-cp", classPathOfRootsOwn(), Main.class.getName(), "serve",
                "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", s, "--log-dir", dir.resolve("logs").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                 ServeDaemon.cli("queue", "--socket", s).code() != 0; Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end && daemon.isAlive(), ServeDaemon.cli("queue", "--socket", s) + "\n"
                        + Files.readString(dir.resolve("daemon.log")));
            }
            Path alice = ownDir(ALICE, dir.resolve(ALICE));
            Path bob = ownDir(BOB, dir.resolve(BOB));
            // Her job says where it reports and which pid its simulated process has, for bob to name.
            String hers = "echo dir=$GPUSCHED_SIM_DIR; $GPUSCHED_SIMJOB --vram 1500 --ramp 0.1 --hold 3 & echo $! > simpid;"
                    + " wait $!";
            assertTrue(as(ALICE, socket, submit("[vram=2G] " + hers, alice)).contains("\"no\":1"));
            awaitFile(alice.resolve("simpid"));
            Files.writeString(bob.resolve("target"), Files.readString(alice.resolve("simpid")));
            // Bob names her process in a report of his, and tries her directory.
            String his = "t=$(cat target); her=$(dirname \"$GPUSCHED_SIM_DIR\")/" + ALICE + ";"
                    + " printf '{\"pid\": %s, \"usage\": {\"0\": 20000}}\\n' $t > \"$GPUSCHED_SIM_DIR/$t.json\";"
                    + " ls -la \"$GPUSCHED_SIM_DIR\" > seen 2>&1; id >> seen;"
                    + " ls \"$her\" >/dev/null 2>&1 && echo listed-hers || echo cannot-list-hers;"
                    + " cat \"$her/$t.json\" >/dev/null 2>&1 && echo read-hers || echo cannot-read-hers;"
                    + " { echo x > \"$her/$t.json\"; } 2>/dev/null && echo wrote-hers || echo cannot-write-hers;"
                    + " $GPUSCHED_SIMJOB --vram 700 --ramp 0 --hold 1.5";
            assertTrue(as(BOB, socket, submit("[vram=1G] " + his.replace("\\", "\\\\").replace("\"", "\\\""), bob))
                    .contains("\"no\":2"));
            awaitQueue(s, q -> q.contains("job 1 ok") && q.contains("job 2 ok"));
            try (var names = Files.list(dir.resolve("logs"))) {
                assertEquals(List.of(), names.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".log")).toList(),
                        "their output is in their own files: the state directory keeps no empty log per job");
            }

            String herLog = Files.readString(alice.resolve("gpusched-1.log"));
            Matcher m = Pattern.compile("dir=(\\S+)").matcher(herLog);
            assertTrue(m.find(), herLog);
            Path herDir = Path.of(m.group(1));
            assertEquals(ALICE, herDir.getFileName().toString(), herLog);
            assertEquals(ALICE, Files.getOwner(herDir).getName());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(herDir)));
            assertEquals("rwx--x--x", PosixFilePermissions.toString(Files.getPosixFilePermissions(herDir.getParent())),
                    "users enter the daemon's directory but list nothing in it");
            assertEquals("cannot-list-hers\ncannot-read-hers\ncannot-write-hers\n",
                    Files.readString(bob.resolve("gpusched-2.log")));

            List<String> journal = Files.readAllLines(dir.resolve("logs/journal.jsonl"));
            assertTrue(journal.stream().anyMatch(l -> l.contains("\"key\":\"s1\",\"event\":\"done\"") && l.contains("\"returncode\":0")
                    && l.contains("\"peak_mib\":{\"0\":1500}")), "her job ran as her and its peak is her simjob's, not the 20000 MiB bob"
                    + " named her process with:\n" + String.join("\n", journal));
            assertTrue(journal.stream().anyMatch(l -> l.contains("\"key\":\"s2\",\"event\":\"done\"")
                    && l.contains("\"peak_mib\":{\"0\":700}")), "his own report counts:\n" + String.join("\n", journal));
            assertTrue(Files.readString(dir.resolve("daemon.log")).contains("is not its directory's owner's"),
                    Files.readString(dir.resolve("daemon.log")) + "\nbob saw:\n" + Files.readString(bob.resolve("seen"))
                    + "\nalice's simjob: " + Files.readString(alice.resolve("simpid")));
        } finally {
            ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
        }
    }

    private static String submit(String line, Path cwd) {
        return "{\"v\":1,\"op\":\"submit\",\"line\":\"" + line + "\",\"cwd\":\"" + cwd + "\"}";
    }

    private void awaitFile(Path file) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !Files.exists(file) || Files.readString(file).isBlank(); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, file + ": " + Files.readString(dir.resolve("daemon.log")));
        }
    }
}
