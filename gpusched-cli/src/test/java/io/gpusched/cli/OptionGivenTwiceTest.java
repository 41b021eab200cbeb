package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An option that takes a value, given twice on one command line, is a usage error naming the option and both
 * values (exit 2), whichever verb reads it: picocli kept the last value and dropped the others unsaid
 * ({@code --log-dir a --log-dir b} ran with its journal in b). A flag given twice says the same thing twice.
 * Each test runs the real command line ({@link Cli#run}) on real files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OptionGivenTwiceTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(args);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A log directory of the test's own: a run the check missed must not write in the working directory. */
    private String logs() {
        return dir.resolve("logs").toString();
    }

    private Path jobs() throws Exception {
        return Files.writeString(dir.resolve("jobs.txt"), "true\n");
    }

    @Test
    void aRunsLogDirGivenTwice_isRefusedNamingBothValues_andNeitherDirectoryIsMade() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        assertEquals(2, run(jobs().toString(), "--sim", "1", "--log-dir", a.toString(), "--log-dir=" + b));
        assertEquals("gpusched: --log-dir given twice (" + a + ", " + b + "): give it once\n", err());
        assertTrue(Files.notExists(a) && Files.notExists(b), "no journal written anywhere");
    }

    @Test
    void theSameValueTwice_orAnOptionThreeTimes_isRefusedToo_quotingValuesWithBlanks() throws Exception {
        assertEquals(2, run(jobs().toString(), "--sim", "1", "--log-dir", logs(), "--poll", "1", "--poll", "1"));
        assertEquals("gpusched: --poll given twice (1, 1): give it once\n", err());
        err.reset();
        assertEquals(2, run(jobs().toString(), "--on-finish", "notify-send done", "--sim", "1", "--log-dir", logs(), "--on-finish", "",
                "--on-finish=x"));
        assertEquals("gpusched: --on-finish given 3 times ('notify-send done', '', x): give it once\n", err());
    }

    @Test
    void aFlagGivenTwiceIsTheFlag_andHelpStillAnswers() throws Exception {
        CliArgs a = CliArgs.parse(jobs().toString(), "--exclusive", "-v", "--exclusive", "--verbose");
        assertTrue(a.options().exclusive() && a.options().verbose());
        assertEquals(0, run(jobs().toString(), "--poll", "1", "--poll", "2", "--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: gpusched JOBS_FILE"));
    }

    @Test
    void serveRefusesAnOptionTwiceOnItsCommandLine_butTheCommandLineStillWinsOverTheConfigurationFile()
            throws Exception {
        Path conf = Files.writeString(dir.resolve("gpusched.conf"), "poll = 5\nmargin = 2048\n");
        assertEquals(2, run("serve", "--config", conf.toString(), "--margin", "1", "--margin", "2"));
        assertEquals("gpusched: --margin given twice (1, 2): give it once\n", err());
        CliArgs args = ServeConfig.parseServe("--config", conf.toString(), "--poll", "0.5");
        assertEquals(Duration.ofMillis(500), args.options().poll());
        assertEquals(2048, args.options().marginMib());
    }

    @Test
    void clientVerbsRefuseItBeforeAskingTheDaemon() {
        Path socket = dir.resolve("none.sock");
        assertEquals(2, run("submit", "--socket", socket.toString(), "--vram", "8G", "-n", "1", "--vram=16G", "--", "true"));
        assertEquals("gpusched: --vram given twice (8G, 16G): give it once\n", err());
        err.reset();
        assertEquals(2, run("submit", "--socket", socket.toString(), "-n", "1", "--gpus", "2", "--", "true"));
        assertEquals("gpusched: --gpus given twice (1, 2): give it once\n", err());
        err.reset();
        assertEquals(2, run("queue", "--socket", socket.toString(), "--user", "ada", "--user", "bob"));
        assertEquals("gpusched: --user given twice (ada, bob): give it once\n", err());
        err.reset();
        assertEquals(2, run("stats", "--log-dir", dir.resolve("x").toString(), "--log-dir", dir.resolve("y").toString()));
        assertTrue(err().startsWith("gpusched stats: --log-dir given twice (" + dir.resolve("x") + ", "), err());
    }

    @Test
    void theSlurmExecutorRefusesItToo_andTwoExecutorsAreNotRunLocally() throws Exception {
        String file = jobs().toString();
        assertEquals(2, run(file, "--executor", "slurm", "--partition", "gpu", "--partition=debug"));
        assertEquals("gpusched: --partition given twice (gpu, debug): give it once\n", err());
        err.reset();
        // --executor local was taken out and the rest run locally, the slurm unsaid
        Path logs = dir.resolve("logs");
        assertEquals(2, run(file, "--executor", "local", "--sim", "1", "--log-dir", logs.toString(), "--executor", "slurm"));
        assertEquals("gpusched: --executor given twice (local, slurm): give it once\n", err());
        assertTrue(Files.notExists(logs), "nothing ran");
    }
}
