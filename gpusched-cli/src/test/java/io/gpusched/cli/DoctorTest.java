package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.output;
import static io.gpusched.cli.UnixUsers.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched doctor} finding real problems on this machine: a state directory another real user owns,
 * a socket directory another group can write, tmux missing from PATH, no GPU driver, a bad configuration
 * line; and a clean run against a running daemon. Needs root (the lab's daemon's rules, and a user to own
 * things): useradd (package passwd).
 */
class DoctorTest {
    private static final String OWNER = "gs-dr-owner";

    @TempDir
    Path dir;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = new UnixUsers.ForClass(() -> {
        UnixUsers.assumeRoot("needs root: doctor checks the lab daemon's rules");
        return UnixUsers.add(OWNER);
    });

    private record Doctor(int code, String out) {
        List<String> lines() {
            return List.of(out.split("\n"));
        }

        /** The line of one check, and its fix line when it has one. */
        String check(String name) {
            List<String> l = lines();
            for (int i = 0; i < l.size(); i++) {
                if (l.get(i).matches("\\S+ +" + java.util.regex.Pattern.quote(name) + ": .*")) {
                    return l.get(i) + (i + 1 < l.size() && l.get(i + 1).startsWith("           fix: ") ? "\n" + l.get(i + 1) : "");
                }
            }
            throw new AssertionError("no " + name + " check in\n" + out);
        }
    }

    private static Doctor doctor(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> argv = new ArrayList<>(List.of("doctor"));
        argv.addAll(List.of(args));
        int code = new DoctorCommand(new PrintStream(out, true, StandardCharsets.UTF_8), System.err,
                k -> env.containsKey(k) ? env.get(k) : System.getenv(k)).run(argv.toArray(String[]::new));
        return new Doctor(code, out.toString(StandardCharsets.UTF_8));
    }

    /** Doctor on the test's own directories, simulated GPUs, no configuration file. */
    private Doctor doctorHere(Map<String, String> env, Path logDir, Path socketDir) {
        return doctor(env, "--sim", "--log-dir", logDir.toString(), "--socket", socketDir.resolve("gpusched.sock").toString(),
                "--config", dir.resolve("no.conf").toString());
    }

    @Test
    void aCleanMachineWithARunningDaemonPassesEveryCheck() throws Exception {
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2").start()) {
            Doctor d = doctor(Map.of(), "--sim", "--log-dir", daemon.logs().toString(), "--socket", daemon.socket().toString(),
                    "--config", dir.resolve("no.conf").toString());
            assertEquals(0, d.code(), d.out());
            assertTrue(d.check("daemon").startsWith("ok       daemon: answers on " + daemon.socket() + " (you are root to it)"), d.out());
            assertTrue(d.check("state directory").startsWith("ok       state directory: " + daemon.logs()), d.out());
            assertTrue(d.check("socket directory").startsWith("ok       "), d.out());
            assertTrue(d.check("gpusched-runas").equals("ok       gpusched-runas: runs from " + daemon.logs().resolve("runs")),
                    "tried where the daemon runs it from: " + d.out());
            assertTrue(d.check("gpusched-spawnd").startsWith("ok       "), d.out());
            assertTrue(d.check("util-linux").startsWith("ok       util-linux: setsid at /"), d.out());
            assertTrue(d.lines().stream().noneMatch(l -> l.startsWith("problem")), d.out());
            if (Files.isExecutable(Path.of("/usr/bin/tmux"))) {
                assertTrue(d.out().endsWith("all checks passed\n"), d.out());
            }
        }
    }

    @Test
    void aStateDirectoryOwnedByAnotherUserIsAProblem_withTheFix() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        assertEquals(0, run("chown", OWNER + ":" + OWNER, state.toString()));
        Doctor d = doctorHere(Map.of(), state, dir.resolve("run"));
        assertEquals(1, d.code(), d.out());
        String uid = output("id", "-u", OWNER);
        assertTrue(d.check("state directory").startsWith("problem  state directory: " + state + " belongs to uid " + uid + " ("
                + OWNER + "), not root: a root scheduler trusts only state that no other user can change; use a root-owned"
                + " directory such as /var/lib/gpusched (--log-dir), or chown root " + state), d.out());
        assertTrue(d.out().endsWith("1 problem, 0 warnings\n") || d.out().endsWith("1 problem, 1 warning\n"), d.out());
        assertEquals(OWNER, Files.getOwner(state).getName(), "doctor changes nothing");
    }

    @Test
    void aStateDirectoryOthersCanReadIsANote_forTheDaemonMakesItPrivate() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-xr-x"));
        Doctor d = doctorHere(Map.of(), state, dir.resolve("run"));
        assertTrue(d.check("state directory").startsWith("note     state directory: " + state + " is rwxr-xr-x; a root scheduler"
                + " makes it 0700"), d.out());
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)), "doctor changes nothing");
    }

    @Test
    void aSocketDirectoryAnotherGroupCanWriteIsAProblem_withTheFix() throws Exception {
        Path run = Files.createDirectory(dir.resolve("run"));
        assertEquals(0, run("chgrp", OWNER, run.toString()));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxr-x"));
        Doctor d = doctorHere(Map.of(), dir.resolve("state"), run);
        assertEquals(1, d.code(), d.out());
        assertEquals("problem  socket directory: socket directory " + run + " is writable by its group: another user could"
                + " swap the socket; chmod go-w " + run + " (or remove it)", d.check("socket directory"), d.out());
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(0, doctorHere(Map.of(), dir.resolve("state"), run).code(), "fixed as it said, nothing is left");
    }

    @Test
    void tmuxMissingFromPathIsAWarningWithItsFix_notAProblem() throws Exception {
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Doctor d = doctorHere(Map.of("PATH", bin.toString()), dir.resolve("state"), dir.resolve("run"));
        assertEquals("warning  tmux: not found on PATH (" + bin + "): [tty] jobs fail at once; other jobs are not affected\n"
                + "           fix: apt-get install tmux", d.check("tmux"));
        assertEquals(0, d.code(), "a warning alone exits 0: " + d.out());

        Path tmux = Files.writeString(bin.resolve("tmux"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tmux, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals("ok       tmux: at " + tmux + " (for [tty] jobs)",
                doctorHere(Map.of("PATH", bin.toString()), dir.resolve("state"), dir.resolve("run")).check("tmux"));
    }

    @Test
    void noGpuDriverIsAProblemWithItsFix_butANoteWithSim() throws Exception {
        Doctor d = doctor(Map.of(), "--nvml-library", dir.resolve("libnvidia-ml.so.1").toString(), "--log-dir",
                dir.resolve("state").toString(), "--socket", dir.resolve("run/s.sock").toString(), "--config",
                dir.resolve("no.conf").toString());
        assertEquals(1, d.code(), d.out());
        String gpu = d.check("GPU backend");
        assertTrue(gpu.startsWith("problem  GPU backend: no GPU found: nvml: ") && gpu.contains("\n           fix: install"
                + " NVIDIA's driver") && gpu.contains("gpusched doctor --sim"), d.out());
        assertTrue(doctorHere(Map.of(), dir.resolve("state"), dir.resolve("run")).check("GPU backend")
                .startsWith("note     GPU backend: --sim"));
    }

    @Test
    void aConfigurationLineServeWouldRefuseIsAProblemNamingItsLine() throws Exception {
        Path conf = Files.writeString(dir.resolve("gpusched.conf"), "# the lab's daemon\npoll = 2\n\nmargn = 512\n");
        Doctor d = doctor(Map.of(), "--sim", "--log-dir", dir.resolve("state").toString(), "--socket",
                dir.resolve("run/s.sock").toString(), "--config", conf.toString());
        assertEquals(1, d.code(), d.out());
        assertTrue(d.check("configuration").startsWith("problem  configuration: " + conf + ":4: unknown key 'margn' — did you mean margin?"),
                d.out());
        Files.writeString(conf, "# the lab's daemon\npoll = 2\nmargin = 512\ndashboard = 127.0.0.1:8765\n");
        assertEquals("ok       configuration: " + conf + " reads as serve's options", doctor(Map.of(), "--sim", "--log-dir",
                dir.resolve("state").toString(), "--socket", dir.resolve("run/s.sock").toString(), "--config", conf.toString())
                .check("configuration"));
    }

    @Test
    void aConfigurationIsReadAsServeReadsIt_aBadValueNamesItsLine_andAKeyWithoutEqualsIsRefused() throws Exception {
        Path conf = Files.writeString(dir.resolve("gpusched.conf"), "margin = 512\npoll = soon  # a comment\n");
        String check = doctor(Map.of(), "--sim", "--log-dir", dir.resolve("state").toString(), "--socket",
                dir.resolve("run/s.sock").toString(), "--config", conf.toString()).check("configuration");
        assertTrue(check.startsWith("problem  configuration: --poll needs a number, got 'soon' (--poll from " + conf
                + ":2)"), check);
        // serve reads key = value only: what it would refuse at its start, doctor does not pass
        Files.writeString(conf, "margin 512\n");
        check = doctor(Map.of(), "--sim", "--log-dir", dir.resolve("state").toString(), "--socket",
                dir.resolve("run/s.sock").toString(), "--config", conf.toString()).check("configuration");
        assertTrue(check.startsWith("problem  configuration: " + conf + ":1: unknown key 'margin 512'"), check);
    }

    @Test
    void aBadCommandLineIsAUsageError() {
        Doctor d = doctor(Map.of(), "--bogus");
        assertEquals(Cli.USAGE, d.code());
    }
}
