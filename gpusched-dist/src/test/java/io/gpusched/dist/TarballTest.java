package io.gpusched.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as a lab admin uses it: unpacked anywhere and run on a machine with a Java runtime and
 * nothing else, no Maven, no C compiler. Its PATH here is a directory holding links to java and to the
 * few programs the launcher itself runs (sh, readlink, dirname), so a build step would fail loudly.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TarballTest {
    @TempDir
    static Path dir;
    static Path home;
    static Map<String, String> env;

    @BeforeAll
    static void unpackWithOnlyJavaOnThePath() throws Exception {
        Artifacts.Run untar = Artifacts.run(dir, null, 60, "tar", "xzf", Artifacts.tarball().toAbsolutePath().toString());
        assertEquals(0, untar.code(), untar.out());
        home = dir.resolve("gpusched-" + Artifacts.version() + "-linux-x86_64");
        Path bin = Files.createDirectories(dir.resolve("path"));
        Files.createSymbolicLink(bin.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
        for (String tool : List.of("sh", "readlink", "dirname")) {
            Files.createSymbolicLink(bin.resolve(tool), which(tool));
        }
        env = new HashMap<>(Map.of("PATH", bin.toString(), "HOME", dir.toString(), "LANG", "C.UTF-8"));
    }

    private static Path which(String tool) throws IOException {
        for (String d : System.getenv("PATH").split(":")) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p.toRealPath();
            }
        }
        throw new AssertionError(tool + " is not on this machine's PATH");
    }

    private static Artifacts.Run gpusched(long seconds, String... args) throws Exception {
        String[] argv = new String[args.length + 1];
        argv[0] = home.resolve("bin/gpusched").toString();
        System.arraycopy(args, 0, argv, 1, args.length);
        return Artifacts.run(home, env, seconds, argv);
    }

    @Test
    void thePathHasNoBuildTools() {
        for (String tool : List.of("mvn", "gcc", "cc", "make", "javac")) {
            assertFalse(Files.exists(dir.resolve("path").resolve(tool)), tool);
        }
    }

    @Test
    void versionRunsWithoutMavenOrACompiler() throws Exception {
        // One line: the version, then the build's revision and date and the Java runtime (issue #25).
        Artifacts.Run r = gpusched(60, "--version");
        assertEquals(0, r.code(), r.out());
        assertTrue(r.out().startsWith("gpusched " + Artifacts.version() + " (revision ") && r.out().contains("; Java ")
                && r.out().lines().count() == 1, r.out());
    }

    @Test
    void theShippedDemoRunsOnTwoSimulatedGpus() throws Exception {
        Artifacts.Run demo = gpusched(120, "examples/demo.txt", "--sim", "2", "--fresh", "--log-dir",
                dir.resolve("demo-logs").toString());
        assertEquals(0, demo.code(), demo.out());
        assertTrue(demo.out().contains("all 6 jobs done"), demo.out());
    }

    @Test
    void serveFromAConfigurationFileAnswersQueue() throws Exception {
        Path conf = dir.resolve("gpusched.conf");
        Path socket = dir.resolve("run/gpusched.sock");
        Files.writeString(conf, String.join("\n",
                "# a daemon on one simulated GPU",
                "sim = 1",
                "poll = 0.2",
                "socket = " + socket,
                "log-dir = '" + dir.resolve("serve-logs") + "'",
                ""));
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/gpusched").toString(), "serve", "--config", conf.toString())
                .directory(home.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("serve.log").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process daemon = pb.start();
        try {
            Artifacts.Run queue = null;
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); System.nanoTime() < end; Thread.sleep(200)) {
                queue = gpusched(60, "queue", "--socket", socket.toString());
                if (queue.code() == 0 || !daemon.isAlive()) {
                    break;
                }
            }
            assertTrue(queue != null && queue.code() == 0, "queue: " + queue + "\ndaemon: " + Files.readString(dir.resolve("serve.log")));
            // queue's native client, installed beside the jar, took it (exit 0, not its hand-over's 100),
            // and printed what the Java client prints.
            Artifacts.Run direct = Artifacts.run(home, env, 60, home.resolve("lib/gpusched/gpusched-queue").toString(),
                    "queue", "--socket", socket.toString());
            assertEquals(0, direct.code(), direct.out());
            Map<String, String> javaOnly = new HashMap<>(env);
            javaOnly.put("GPUSCHED_NO_NATIVE_CLIENT", "1");
            Artifacts.Run java = Artifacts.run(home, javaOnly, 60, home.resolve("bin/gpusched").toString(), "queue",
                    "--socket", socket.toString());
            assertEquals(java, gpusched(60, "queue", "--socket", socket.toString()));
            assertEquals(java.out(), direct.out());
            Artifacts.Run info = gpusched(60, "info", "--socket", socket.toString());
            assertEquals(0, info.code(), info.out());
            assertTrue(info.out().contains("24000"), "one simulated 24000 MiB GPU, from the file's sim = 1: " + info.out());
        } finally {
            daemon.destroy();
            if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
                daemon.destroyForcibly();
            }
        }
    }

    @Test
    void theJarCarriesTheNativeHelpersPrebuilt() throws Exception {
        Path jarTool = Path.of(System.getProperty("java.home"), "bin", "jar");
        Assumptions.assumeTrue(Files.isExecutable(jarTool), "skipped: no jar tool in " + jarTool.getParent()
                + " (a JRE); the demo and serve above ran the helpers anyway");
        Artifacts.Run list = Artifacts.run(jarTool.toString(), "tf", home.resolve("lib/gpusched/gpusched.jar").toString());
        for (String helper : List.of("io/gpusched/engine/spawn/gpusched-spawnd", "io/gpusched/engine/spawn/gpusched-runas",
                "io/gpusched/testkit/sim/simjob")) {
            assertTrue(Artifacts.lines(list.out()).contains(helper), helper + " in " + list.out());
        }
    }

    @Test
    void itShipsTheManPageCompletionsUnitsAndAnExampleConfiguration() throws Exception {
        for (String f : List.of("share/man/man1/gpusched.1.gz", "share/bash-completion/completions/gpusched",
                "share/zsh/site-functions/_gpusched", "share/fish/vendor_completions.d/gpusched.fish",
                "lib/systemd/system/gpusched.service",
                "lib/systemd/user/gpusched.service", "etc/gpusched/gpusched.conf", "examples/demo.txt", "README.md",
                "LICENSE")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f);
        }
        assertTrue(Files.isExecutable(home.resolve("bin/gpusched")));
        Artifacts.Run man = Artifacts.run("sh", "-c", "gzip -dc " + home.resolve("share/man/man1/gpusched.1.gz"));
        assertTrue(man.out().contains(".TH GPUSCHED 1"), man.out());
        Artifacts.Run bash = Artifacts.run("bash", "-n", home.resolve("share/bash-completion/completions/gpusched").toString());
        assertEquals(0, bash.code(), bash.out());
        String unit = Files.readString(home.resolve("lib/systemd/system/gpusched.service"));
        for (String line : List.of("ExecStart=/usr/bin/gpusched serve", "RuntimeDirectory=gpusched", "RuntimeDirectoryMode=0755",
                "StateDirectory=gpusched", "StateDirectoryMode=0700", "KillMode=process", "OOMPolicy=continue")) {
            assertTrue(unit.lines().anyMatch(line::equals), line);
        }
        assertFalse(unit.lines().anyMatch(l -> l.startsWith("NoNewPrivileges=") || l.startsWith("PrivateTmp=")
                || l.startsWith("ProtectHome=") || l.startsWith("PrivateDevices=")), unit);
    }

    @Test
    void aStopBySigtermIsASuccessToTheUnits_soSystemctlStopLeavesNoFailedUnit() throws Exception {
        Path socket = dir.resolve("stop.sock");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/gpusched").toString(), "serve", "--sim", "1", "--socket",
                socket.toString(), "--log-dir", dir.resolve("stop-logs").toString()).directory(home.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stop.log").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process daemon = pb.start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !Files.exists(socket); Thread.sleep(50)) {
            assertTrue(daemon.isAlive() && System.nanoTime() < end, () -> "no socket: " + read(dir.resolve("stop.log")));
        }
        daemon.destroy(); // SIGTERM, what systemctl stop and restart send
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS), "the daemon did not stop on SIGTERM");
        int code = daemon.exitValue();
        for (String unit : List.of("lib/systemd/system/gpusched.service", "lib/systemd/user/gpusched.service")) {
            List<String> success = Files.readAllLines(home.resolve(unit)).stream().filter(l -> l.startsWith("SuccessExitStatus="))
                    .flatMap(l -> List.of(l.substring(l.indexOf('=') + 1).trim().split("\\s+")).stream()).toList();
            assertTrue(code == 0 || success.contains(Integer.toString(code)),
                    unit + " counts the daemon's own stop (exit " + code + ") as a failure: SuccessExitStatus is " + success);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }
}
