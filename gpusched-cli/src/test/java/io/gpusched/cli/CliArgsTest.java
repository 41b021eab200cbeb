package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CliArgsTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), s -> {
        }).run(args);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aPlainCommandLineReadsAsPicocliReadsTheSameOptionsWrittenWithEquals() {
        CliArgs.Words plain = CliArgs.read(false, "jobs.txt", "--sim", "2", "-v", "--poll", "0.5", "--on-finish", "x y");
        CliArgs.Words picocli = CliArgs.read(false, "--sim=2", "jobs.txt", "-v", "--poll=0.5", "--on-finish=x y");
        assertEquals(Optional.of("jobs.txt"), plain.jobsFile());
        assertEquals(picocli.jobsFile(), plain.jobsFile());
        assertEquals(java.util.List.of("--sim 2", "--verbose ", "--poll 0.5", "--on-finish x y"), plain.options().stream()
                .map(g -> g.name() + " " + g.value()).toList());
        assertEquals(plain.options().stream().map(g -> g.name() + " " + g.value()).sorted().toList(),
                picocli.options().stream().map(g -> g.name() + " " + g.value()).sorted().toList());
        UsageException twice = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> CliArgs.read(true, "--socket", "/tmp/s", "--config", "a.conf", "--config", "b.conf"));
        assertEquals("--config given twice (a.conf, b.conf): give it once", twice.getMessage());
    }

    @Test
    void everyReadmeOptionIsAccepted() {
        CliArgs a = CliArgs.parse("jobs.txt", "--gpus", "0,1,3", "--idle-threshold", "300", "--margin", "256", "--tolerance",
                "0.2", "--spike-buffer", "0.15", "--poll", "0.5", "--exclusive", "--watch", "--oom-retries", "2", "--fresh",
                "--log-dir", "L", "-v", "--sim", "2");
        assertEquals(Optional.of(Set.of(0, 1, 3)), a.options().allowedGpus());
        assertEquals(300, a.options().idleThresholdMib());
        assertEquals(256, a.options().marginMib());
        assertEquals(0.2, a.options().tolerance());
        assertEquals(0.15, a.options().spikeBuffer());
        assertEquals(Duration.ofMillis(500), a.options().poll());
        assertTrue(a.options().exclusive() && a.options().watch() && a.options().verbose() && a.fresh());
        assertEquals(2, a.options().oomRetries());
        assertEquals(Path.of("L"), a.logDir());
        assertEquals(Optional.of(2), a.sim());
    }

    @Test
    void aPositiveNumberOfSecondsNeverRoundsToZero_aTinyKillGraceIsANanosecondNotNone() {
        assertEquals(Duration.ofNanos(1), CliArgs.parse("j", "--kill-grace", "0.0000000001").options().killGrace());
        assertEquals(Duration.ofNanos(1), CliArgs.parse("j", "--kill-grace", "1e-300").options().killGrace());
        assertEquals(Duration.ofMillis(1500), CliArgs.parse("j", "--kill-grace", "1.5").options().killGrace());
        assertEquals(Duration.ofDays(1), CliArgs.parse("j", "--kill-grace", "86400").options().killGrace());
    }

    @Test
    void serveTakesItsConnectionLimits_whichDefaultTo1024And64AndAMinuteIdle() {
        assertEquals(io.gpusched.service.ServiceServer.Limits.DEFAULTS, CliArgs.parse(true).limits());
        assertEquals(new io.gpusched.service.ServiceServer.Limits(10, 2, Duration.ofMillis(500)), CliArgs.parse(true,
                "--max-connections", "10", "--max-connections-per-user=2", "--idle-timeout", "0.5").limits());
        assertEquals(2, run("serve", "--max-connections", "0"));
        assertEquals("gpusched: --max-connections must be 1 to 1000000 connections, got 0\n", err());
        err.reset();
        assertEquals(2, run("jobs.txt", "--idle-timeout", "5"));
        assertEquals("gpusched: --idle-timeout is an option of gpusched serve\n", err());
    }

    @Test
    void serveWarnsWhenItsOpenFileLimitIsBelowItsConnectionLimit() {
        String warning = Cli.fileLimitWarning(new io.gpusched.service.ServiceServer.Limits(Integer.MAX_VALUE - 300, 64,
                Duration.ofSeconds(60))).orElseThrow();
        assertTrue(warning.startsWith("gpusched: warning: --max-connections " + (Integer.MAX_VALUE - 300) + " needs about ")
                && warning.contains("LimitNOFILE="), warning);
        assertEquals(Optional.empty(), Cli.fileLimitWarning(new io.gpusched.service.ServiceServer.Limits(1, 1,
                Duration.ofSeconds(60))));
    }

    @Test
    void backendTimeoutDefaultsToTenSecondsAndTakesSeconds() {
        assertEquals(Duration.ofSeconds(10), CliArgs.parse("j").options().backendTimeout());
        assertEquals(Duration.ofMillis(2500), CliArgs.parse("j", "--backend-timeout", "2.5").options().backendTimeout());
    }

    @Test
    void optionValuesMayBeGivenWithEquals() {
        assertEquals(128, CliArgs.parse("j", "--margin=128").options().marginMib());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--poll 0|--poll must be more than 0",
        "--margin -1|--margin must be >= 0 MiB",
        "--margin 9223372036854775807|--margin must be at most 2147483647 MiB, got 9223372036854775807",
        "--gpus 0,0,9|--gpus names gpu 0 twice",
        "--gpus a,b|--gpus needs GPU indices",
        "--sim 0|--sim must be 1 to 64 GPUs",
        "--tolerance 1.5|--tolerance must be in [0, 1)",
        "--idle-threshold 0|--idle-threshold must be >= 1 MiB",
        "--idle-threshold 9223372036854775807|--idle-threshold must be at most 2147483647 MiB, got 9223372036854775807",
        "--oom-retries x|--oom-retries needs a whole number",
        "--oom-retries 4294967296|--oom-retries must be a whole number from 0 to 1000, got 4294967296",
        "--oom-retries 1001|--oom-retries must be a whole number from 0 to 1000, got 1001",
        "--oom-retries -1|--oom-retries must be a whole number from 0 to 1000, got -1",
        "--bogus|unknown option --bogus",
        "--visible-devices pci|--visible-devices must be uuid or index",
        "--backend-timeout 0|--backend-timeout must be more than 0",
        "--backend-timeout -3|--backend-timeout must be more than 0",
        "--backend-timeout 90000|--backend-timeout must be more than 0 and at most 86400 seconds",
        "--backend-timeout 0.0001|--backend-timeout must be at least 0.001 s",
        "--backend-timeout soon|--backend-timeout needs a number",
        "--fair-share-half-life 0|--fair-share-half-life must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d),"
                + " got '0'",
        "--age-step 0.5|--age-step must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d), got '0.5'",
        "--age-step 0m|--age-step must be from 1s to 3650d",
    })
    void badOptionsAreOneLineErrorsWithExitCode2(String args, String message) throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        String[] argv = (jobs + " " + args).split(" ");
        assertEquals(2, run(argv));
        assertTrue(err().startsWith("gpusched: ") && err().contains(message), err());
        assertEquals(1, err().strip().lines().count(), err());
        assertFalse(err().matches("(?s).*\\bPT[0-9.]+[SMHD]\\b.*"), "a java.time.Duration's toString: " + err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"--log-dir|''", "--log-dir|'  '", "--log-dir=|"})
    void emptyLogDirIsAOneLineUsageErrorAndWritesNothing(String option, String value) throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        // An empty path used to resolve journal.jsonl and runs/ against the current directory.
        Path cwd = Path.of("").toAbsolutePath();
        Set<String> before = names(cwd);
        int code = value == null ? run(jobs.toString(), "--sim", "1", option) : run(jobs.toString(), "--sim", "1", option, value);
        assertEquals(2, code, err());
        assertEquals("gpusched: --log-dir needs a directory, got '" + (value == null ? "" : value) + "': give one, or leave"
                + " --log-dir out\n", err());
        assertEquals(before, names(cwd));
        assertEquals(Set.of("jobs.txt"), names(dir));
    }

    private static Set<String> names(Path directory) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void misspeltOptionGetsTheClosestOptionSuggested() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        assertEquals(2, run(jobs.toString(), "--simm", "2"));
        assertEquals("gpusched: unknown option --simm — did you mean --sim? (see gpusched --help)\n", err());
    }

    /** local-gpu-scheduler's run_server.py options are answered with ours, not with --poll for --port. */
    @Test
    void serveDetachAndPort_sayWhatDoesTheirJobHere() throws Exception {
        assertEquals(2, run("serve", "--port", "8080"));
        assertEquals("gpusched: unknown option --port for gpusched serve — run_server.py's --port: clients reach the"
                + " daemon on a UNIX socket here (--socket PATH), and --dashboard PORT serves /status and /jobs over HTTP"
                + " (see gpusched serve --help)\n", err());
        err.reset();
        assertEquals(2, run("serve", "--detach"));
        assertTrue(err().startsWith("gpusched: unknown option --detach for gpusched serve — run_server.py's --detach:"
                + " serve stays in the foreground here; run it under systemd (systemctl --user enable --now gpusched)"), err());
    }

    @Test
    void unknownOptionFarFromEveryOptionGetsNoSuggestion() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        assertEquals(2, run(jobs.toString(), "--bogus"));
        assertEquals("gpusched: unknown option --bogus (see gpusched --help)\n", err());
    }

    @Test
    void everyDocumentedOptionIsSuggestedForItselfLessItsLastLetter() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^  (?:-[a-z], )?(--[a-z-]+)", java.util.regex.Pattern.MULTILINE)
                .matcher(CliArgs.help(false));
        int options = 0;
        while (m.find()) {
            String option = m.group(1);
            String typo = option.substring(0, option.length() - 1);
            UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class, () -> CliArgs.parse("j", typo));
            assertTrue(e.getMessage().contains(" — did you mean " + option + "? "), e.getMessage());
            options++;
        }
        assertTrue(options >= 20, "found the option lines: " + options);
    }

    @Test
    void missingJobsFileIsExitCode2() {
        assertEquals(2, run(dir.resolve("nope.txt").toString(), "--sim", "1"));
        assertTrue(err().contains("nope.txt not found"), err());
    }

    @Test
    void anEmptyJobsFileNameIsSaidToBeEmpty_notTheWorkingDirectory() throws Exception {
        assertEquals(2, run("", "--sim", "1"));
        assertEquals("gpusched: the jobs file's name is empty (an unset variable?); give the path of a jobs file\n", err());
    }

    @Test
    void anUnreadableJobsFileSaysPermissionDeniedAndTheFix() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse("root".equals(System.getProperty("user.name")),
                "running as root: chmod 000 does not deny reading");
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "echo a\n");
        Files.setPosixFilePermissions(jobs, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        assertEquals("gpusched: cannot read jobs file " + jobs + ": permission denied; fix with chmod u+r " + jobs + "\n",
                err());
    }

    @Test
    void directoryGivenAsTheJobsFileIsSaidToBeADirectory() throws Exception {
        Path jobsDir = Files.createDirectory(dir.resolve("jobs"));
        assertEquals(2, run(jobsDir.toString(), "--sim", "1"));
        assertEquals("gpusched: jobs file " + jobsDir + " is a directory; give the jobs file inside it\n", err());
    }

    @Test
    void aFifoOrADeviceGivenAsTheJobsFileIsSaidToBeNoRegularFile_notMissing() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Path file : List.of(fifo, Path.of("/dev/zero"))) {
            err.reset();
            assertEquals(2, run(file.toString(), "--sim", "1"));
            assertEquals("gpusched: jobs file " + file + " is not a regular file (a FIFO, a device or a socket); write the"
                    + " jobs to a file and give that\n", err());
        }
    }

    @Test
    void aJobsFileWithLinesAShellWouldReadAsOtherThanOneJobEachIsRefusedAtStart_eachWithFileLineAndFix() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] sh -c 'echo \"args: $*\"' train \\\n"
                + "    --lr 3e-4 --epochs 50\n"
                + "[vram=1G comment=x] # only comment\n"
                + "printf '[%s]' a\\ \n"
                + "echo a\recho b\r\n"
                + "printf \u001b[1m\n");
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        assertEquals(String.join("\n",
                "gpusched: jobs.txt:1: line ends with '\\' (a shell line continuation), but a job is one line: 'sh -c 'echo"
                        + " \"args: $*\"' train \\'; join the next line onto this one, or put the command in a script",
                "gpusched: jobs.txt:3: the command is only a shell comment: '# only comment'; put '#' at the start of the line"
                        + " to skip it, or write the command before the '#'",
                "gpusched: jobs.txt:4: line ends with '\\' and a blank, which a shell reads as an escaped blank (and a line"
                        + " continuation with a stray blank after it looks the same): 'printf '[%s]' a\\ '; quote a blank that"
                        + " is meant ('a '); for a continuation, join the next line onto this one, or put the command in a script",
                "gpusched: jobs.txt:5: carriage return (CR) inside line: 'echo a\\x0decho b'; a job is one line, ended by LF"
                        + " or CRLF; convert CR line ends with tr '\\r' '\\n'",
                "gpusched: jobs.txt:6: control character \\x1b in command: 'printf \\x1b[1m'; write it as an escape the command"
                        + " reads, e.g. printf '\\033' for ESC; TAB is the one control character a command may hold as it is")
                + "\n", err());
    }

    @Test
    void malformedJobsFileAtStartIsExitCode2NamingFileAndLine() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n[vram=8G python x.py\n");
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        assertTrue(err().startsWith("gpusched: jobs.txt:2: unterminated [ block"), err());
    }

    @Test
    void commasBetweenAttributesAtStartAreToldToBeSpaces() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n[vram=8G,gpus=2] python x.py\n");
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        assertEquals("gpusched: jobs.txt:2: attributes are separated by spaces, not commas: write [vram=8G gpus=2]\n", err());
    }

    @Test
    void everyBadLineAtStartIsItsOwnErrorLine() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n[vrma=8G] a\ntrue\n[gpus=0] b\n[vram=1G oops] c\n");
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        assertEquals(String.join("\n",
                "gpusched: jobs.txt:2: unknown key in attribute block: 'vrma=8G' — did you mean 'vram'?; known keys: vram, gpus, timeout, "
                        + "retries, cancel, priority, gpu-ids, preemptible, on-timeout, name, after, after-ok, after-any, conda, setup, tty, comment, unique",
                "gpusched: jobs.txt:4: bad gpus 'gpus=0'; give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5",
                "gpusched: jobs.txt:5: token without '=' in attribute block: 'oops'; write key=value or a bare word (cancel, preemptible, tty, unique); "
                        + "known keys: vram, gpus, timeout, retries, cancel, priority, gpu-ids, preemptible, on-timeout, name, after, "
                        + "after-ok, after-any, conda, setup, tty, comment, unique (a command that starts with '[' needs an empty block first: [] [ -f x ] && ...)",
                ""), err());
    }

    @Test
    void pastTwentyBadLinesAtStartTheRestAreCountedOnOneLine() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= 27; i++) {
            text.append("[gpus=0] job").append(i).append('\n');
        }
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), text);
        assertEquals(2, run(jobs.toString(), "--sim", "1"));
        java.util.List<String> lines = err().lines().toList();
        assertEquals(21, lines.size(), err());
        for (int i = 1; i <= 20; i++) {
            assertEquals("gpusched: jobs.txt:" + i + ": bad gpus 'gpus=0'; give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5", lines.get(i - 1));
        }
        assertEquals("gpusched: ... and 7 more bad lines", lines.get(20));
    }

    @Test
    void unknownBackendListsTheOnesFound() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        assertEquals(2, run(jobs.toString(), "--backend", "dcgm"));
        assertTrue(err().contains("unknown GPU backend 'dcgm'; found:"), err());
    }

    @Test
    void helpVerbPrintsWhatDashDashHelpPrints() {
        assertEquals(0, run("--help"));
        String flag = out.toString(StandardCharsets.UTF_8);
        out.reset();
        assertEquals(0, run("help"));
        assertEquals(flag, out.toString(StandardCharsets.UTF_8));
        assertEquals("", err());
    }

    @Test
    void versionVerbPrintsWhatDashDashVersionPrints() {
        assertEquals(0, run("--version"));
        String flag = out.toString(StandardCharsets.UTF_8);
        assertTrue(flag.startsWith("gpusched "), flag);
        out.reset();
        assertEquals(0, run("version"));
        assertEquals(flag, out.toString(StandardCharsets.UTF_8));
        assertEquals("", err());
    }

    @Test
    void helpVerbWithMoreArgumentsPointsAtDotSlashForAJobsFileNamedHelp() {
        assertEquals(2, run("help", "--sim", "1"));
        assertEquals("gpusched: help takes no arguments; to run a jobs file named help, write ./help\n", err());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void jobsFileNamedHelpRunsWhenGivenAsDotSlashHelp() throws Exception {
        Files.writeString(dir.resolve("help"), "echo ran > ran.txt\n");
        try (SchedulerProcess p = SchedulerProcess.start(dir, java.util.List.of("./help", "--sim", "1", "--poll", "0.1"),
                java.util.Map.of())) {
            assertEquals(0, p.awaitExit(), p.output());
        }
        assertEquals("ran", Files.readString(dir.resolve("ran.txt")).strip());
    }

    @Test
    void helpListsEveryOptionWithItsDefault() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        for (String opt : new String[] {"--gpus", "--idle-threshold", "--margin", "--tolerance", "--spike-buffer", "--poll",
            "--exclusive", "--watch", "--oom-retries", "--fresh", "--log-dir", "--verbose", "--sim", "--backend", "--backend-timeout"}) {
            assertTrue(help.contains(opt), opt);
        }
        assertTrue(help.contains("[512]") && help.contains("[200]") && help.contains("[gpusched_logs; serve as root: /var/lib/gpusched]"));
        assertFalse(err().contains("gpusched:"));
    }
}
