package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.RunEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell text around a job with {@code setup=} or {@code conda=}, run by the real {@code /bin/sh}
 * (dash on Debian) as the wrapper runs it ({@code eval}), with a fake {@code conda} on the PATH.
 */
class EnvironmentScriptTest {
    @TempDir
    Path dir;

    /** What a run of the text printed (stdout and stderr together) and its exit status. */
    private record Ran(String output, int exit) {
    }

    private Ran run(String line, String path) throws Exception {
        String script = EnvironmentScript.of(JobSpec.parse(line));
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "eval \"$1\"", "sh", script).directory(dir.toFile())
                .redirectErrorStream(true);
        pb.environment().put("PATH", path);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Ran(out, p.waitFor());
    }

    private static final String SYSTEM_PATH = "/usr/bin:/bin";

    /** A {@code conda} that implements {@code conda run -n ENV --no-capture-output CMD...}: argv to a file, CMD as its child. */
    private Path fakeConda() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("condabin"));
        Path conda = bin.resolve("conda");
        Files.writeString(conda, String.join("\n",
                "#!/bin/sh",
                "printf '%s\\n' \"$@\" >> '" + dir.resolve("conda-argv") + "'",
                "[ \"$1\" = run ] || exit 2; shift",
                "case \"$1\" in -n|-p) env=$2; shift 2 ;; *) exit 2 ;; esac",
                "[ \"$1\" = --no-capture-output ] && shift",
                "CONDA_DEFAULT_ENV=$env; export CONDA_DEFAULT_ENV",
                "\"$@\"", ""));
        Files.setPosixFilePermissions(conda, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    @Test
    void aJobWithoutAnEnvironmentRunsItsCommandAsWritten() {
        assertEquals("echo 'a b' | wc -c", EnvironmentScript.of(JobSpec.parse("[vram=1G] echo 'a b' | wc -c")));
    }

    @Test
    void setupRunsInTheCommandsShell_itsDotExportAndCdReachTheCommand() throws Exception {
        Files.createDirectories(dir.resolve("venv/bin"));
        Files.writeString(dir.resolve("venv/bin/activate"), "VIRTUAL_ENV=" + dir.resolve("venv") + "; export VIRTUAL_ENV\nPLAIN=set\n");
        Files.createDirectories(dir.resolve("sub"));
        Ran r = run("[setup='. venv/bin/activate && export B=\"x y\" && cd sub'] echo \"$VIRTUAL_ENV|$PLAIN|$B|$(basename \"$PWD\")\"",
                SYSTEM_PATH);
        assertEquals(0, r.exit(), r.output());
        assertEquals(dir.resolve("venv") + "|set|x y|sub\n", r.output());
    }

    @Test
    void sourceWorksInSetupAndCommandEvenWhereShIsDash() throws Exception {
        Files.writeString(dir.resolve("activate"), "export FROM_SOURCE=yes\n");
        Ran r = run("[setup='source ./activate'] echo $FROM_SOURCE", SYSTEM_PATH);
        assertEquals("yes\n", r.output());
        assertEquals(0, r.exit());
    }

    @Test
    void aFailingSetupEndsTheJobWithItsStatus_itsOutputThenOneLineSayingSo_theCommandDoesNotRun() throws Exception {
        Ran r = run("[setup='echo preparing; exit_with() { return $1; }; exit_with 3'] touch ran", SYSTEM_PATH);
        assertEquals(3, r.exit());
        assertEquals("preparing\ngpusched: setup exited 3; the command did not run\n", r.output());
        assertFalse(Files.exists(dir.resolve("ran")));
        assertEquals(Optional.of(new EnvironmentScript.Failure("setup exited 3; the command did not run",
                "the setup's output is in log.txt")), EnvironmentScript.failure(RunEnvironment.setup("x"), 3, Path.of("log.txt"),
                r.output()));
    }

    @Test
    void aSetupThatCannotSourceItsFileOrDoesNotParseIsAFailedSetup_notAShellThatDiesSilently() throws Exception {
        Ran missing = run("[setup='. ./no/such/activate'] touch ran", SYSTEM_PATH);
        assertEquals(2, missing.exit(), missing.output());
        assertTrue(missing.output().endsWith("gpusched: setup exited 2; the command did not run\n"), missing.output());
        Ran syntax = run("[setup='cd x &&'] touch ran", SYSTEM_PATH);
        assertTrue(syntax.output().endsWith("gpusched: setup exited 2; the command did not run\n"), syntax.output());
        assertFalse(Files.exists(dir.resolve("ran")));
    }

    @Test
    void condaRunsTheCommandLineThroughShInTheEnvironment_quotesPipesAndAndsIntact() throws Exception {
        Path bin = fakeConda();
        Ran r = run("[conda=torch] echo \"env=$CONDA_DEFAULT_ENV\" && printf '%s\\n' 'it''s' \"a  b\" | tr a-z A-Z",
                bin + ":" + SYSTEM_PATH);
        assertEquals(0, r.exit(), r.output());
        assertEquals("env=torch\nITS\nA  B\n", r.output());
        assertEquals(List.of("run", "-n", "torch", "--no-capture-output", "sh", "-c",
                "echo \"env=$CONDA_DEFAULT_ENV\" && printf '%s\\n' 'it''s' \"a  b\" | tr a-z A-Z"),
                Files.readAllLines(dir.resolve("conda-argv")));
    }

    @Test
    void anAbsoluteCondaPathIsAPrefix_andTheCommandsExitStatusComesBack() throws Exception {
        Path bin = fakeConda();
        Ran r = run("[conda='/opt/my envs/x'] exit 7", bin + ":" + SYSTEM_PATH);
        assertEquals(7, r.exit());
        assertEquals(List.of("run", "-p", "/opt/my envs/x", "--no-capture-output", "sh", "-c", "exit 7"),
                Files.readAllLines(dir.resolve("conda-argv")));
    }

    @Test
    void withoutCondaOnThePathTheJobEndsWith127AndOneLineNamingTheFix() throws Exception {
        Ran r = run("[conda=torch] touch ran", SYSTEM_PATH);
        assertEquals(127, r.exit());
        assertEquals("gpusched: conda=torch but no 'conda' on PATH; " + EnvironmentScript.CONDA_FIX + "\n", r.output());
        assertFalse(Files.exists(dir.resolve("ran")));
        assertEquals(Optional.of(new EnvironmentScript.Failure("conda=torch but no 'conda' on PATH", EnvironmentScript.CONDA_FIX)),
                EnvironmentScript.failure(RunEnvironment.conda("torch"), 127, Path.of("l"), r.output()));
    }

    @Test
    void aSetupMayPutCondaOnThePath_thenTheCommandRunsInTheEnvironment() throws Exception {
        Path bin = fakeConda();
        Ran r = run("[conda=base setup='PATH=" + bin + ":$PATH; export GREETING=hi'] echo \"$GREETING $CONDA_DEFAULT_ENV\"",
                SYSTEM_PATH);
        assertEquals("hi base\n", r.output());
        assertEquals(0, r.exit());
    }

    @Test
    void onlyTheLastLineOfAJobWithThatEnvironmentAndThatStatusIsTakenForACause() {
        String setupLine = "gpusched: setup exited 1; the command did not run\n";
        assertEquals(Optional.empty(), EnvironmentScript.failure(RunEnvironment.DEFAULT, 1, Path.of("l"), setupLine));
        assertEquals(Optional.empty(), EnvironmentScript.failure(RunEnvironment.setup("x"), 2, Path.of("l"), setupLine));
        assertEquals(Optional.empty(), EnvironmentScript.failure(RunEnvironment.setup("x"), 1, Path.of("l"), setupLine + "later\n"));
        String condaLine = "gpusched: conda=a but no 'conda' on PATH; do this\n";
        assertEquals(Optional.empty(), EnvironmentScript.failure(RunEnvironment.conda("a"), 1, Path.of("l"), condaLine));
        assertEquals(Optional.empty(), EnvironmentScript.failure(RunEnvironment.conda("b"), 127, Path.of("l"), condaLine));
        assertTrue(EnvironmentScript.failure(RunEnvironment.conda("a"), 127, Path.of("l"), "x\r\n" + condaLine).isPresent());
    }
}
