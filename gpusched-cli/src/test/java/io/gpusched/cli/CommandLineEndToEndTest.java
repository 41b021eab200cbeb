package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as people type it (issue #25), through the real CLI in processes of its own against a
 * real daemon: exact argv after {@code --}, a size typed as two words refused, {@code --opt=value}, every
 * jobs-file attribute a flag of {@code submit} and {@code srun} alike and carried into the journal, bare
 * {@code gpusched} listing the verbs, a mistyped verb answered with the nearest one, each verb's help with
 * an example, and {@code --version}'s revision, build date and Java.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CommandLineEndToEndTest {
    @TempDir
    Path dir;
    private ServeDaemon daemon;

    private ServeDaemon serve() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1", "--kill-grace", "1").start();
        return daemon;
    }

    /** The CLI's main class in a JVM of its own, in {@code dir}, with {@code env} added to its environment. */
    private ServeDaemon.Result gpusched(Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        pb.environment().putAll(env);
        return ServeDaemon.result(pb.start());
    }

    private ServeDaemon.Result gpusched(String... args) throws Exception {
        return gpusched(Map.of(), args);
    }

    private String journal() throws Exception {
        return Files.readString(daemon.logs().resolve("journal.jsonl"), StandardCharsets.UTF_8);
    }

    @Test
    void srunRunsTheWordsAfterDashesAsTheProgramAndItsArguments_andExitsWithItsStatus() throws Exception {
        serve();
        String socket = daemon.socket().toString();
        String python = "import sys; print(\"hello world\"); sys.exit(3)";
        List<String> program = Files.isExecutable(Path.of("/usr/bin/python3")) || onPath("python3")
                ? List.of("python3", "-c", python) : List.of("sh", "-c", "echo \"hello world\"; exit 3");
        List<String> args = new ArrayList<>(List.of("srun", "--socket", socket, "--"));
        args.addAll(program);
        ServeDaemon.Result r = gpusched(args.toArray(String[]::new));
        assertEquals(3, r.code(), r.err());
        assertEquals("hello world\n", r.out(), r.err());
        // Without --, the first word that is no option starts the command, the same way.
        args.remove("--");
        r = gpusched(args.toArray(String[]::new));
        assertEquals(3, r.code(), r.err());
        assertEquals("hello world\n", r.out(), r.err());
        // Journaled as one correctly quoted shell line: the journal's format is unchanged.
        assertTrue(journal().contains("\"command\":\"" + program.get(0) + " -c '"), journal());
    }

    @Test
    void submitOfShDashCRunsTheWholeScriptInOneShell_andOneWordIsAShellLine() throws Exception {
        serve();
        String socket = daemon.socket().toString();
        ServeDaemon.Result r = gpusched(Map.of("X", "from-the-environment"), "submit", "--socket", socket, "-f", "--", "sh",
                "-c", "echo $X; sleep 0.2; echo done");
        assertEquals(0, r.code(), r.err());
        assertEquals("submitted job 1\nfrom-the-environment\ndone\n", r.out(), r.err());
        r = gpusched("submit", "--socket", socket, "-f", "--", "echo abc | tr a-c x-z");
        assertEquals("submitted job 2\nxyz\n", r.out(), r.err());
        assertTrue(journal().contains("\"command\":\"sh -c 'echo $X; sleep 0.2; echo done'\""), journal());
    }

    @Test
    void aSizeTypedAsTwoWordsIsRefusedAsABadSize_andNothingIsQueued_whileOptEqualsValueIsTaken() throws Exception {
        serve();
        String socket = daemon.socket().toString();
        ServeDaemon.Result r = gpusched("submit", "--socket", socket, "--vram", "8", "GB", "--", "python", "train.py");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: bad size for --vram: '8 GB' is two words; write --vram 8GB"
                + " (e.g. --vram 8G)\n"), r);
        assertEquals("0 running, 0 pending, 0 done\n", daemon.verb("queue").out());
        r = gpusched("submit", "--socket=" + socket, "--vram=2G", "--", "true");
        assertEquals(new ServeDaemon.Result(0, "submitted job 1\n", ""), r);
        assertTrue(journal().contains("\"line\":\"[vram=2048] true\""), journal());
        r = gpusched("submit", "--socket", socket, "--vrm=2G", "--", "true");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --vrm for gpusched submit — did you mean"
                + " --vram? (see gpusched submit --help)\n"), r);
    }

    @Test
    void everyAttributeIsAFlagOfSubmitAndSrunAlike_andTheJournaledLineCarriesIt() throws Exception {
        serve();
        // A job named dep that has ended ok, for --after and its kind.
        assertEquals(0, daemon.verb("submit", "--name", "dep", "--", "true").code());
        daemon.awaitQueue("1 done");
        int named = 0;
        for (Attribute a : Attribute.values()) {
            if (a.flag().isEmpty()) {
                assertEquals(Attribute.CANCEL, a, "only [cancel], a jobs-file edit, has no flag");
                continue;
            }
            for (String verb : List.of("submit", "srun")) {
                String value = switch (a) {
                    case VRAM -> "1G";
                    case GPUS -> "2"; // 1 is the default, which a line does not write
                    case TIMEOUT -> "1h";
                    case RETRIES -> "1";
                    case PRIORITY -> "2";
                    case GPU_IDS -> "1";
                    case ON_TIMEOUT -> "requeue";
                    case NAME -> "n" + ++named;
                    case AFTER, AFTER_OK, AFTER_ANY -> "dep";
                    case CONDA -> "base";
                    case SETUP -> "true";
                    case COMMENT -> "note-" + verb;
                    default -> "";
                };
                List<String> args = new ArrayList<>(List.of(a.flag().get().option()));
                if (!a.bare()) {
                    args.add(value);
                }
                if (a == Attribute.ON_TIMEOUT) {
                    args.addAll(List.of("--timeout", "1h")); // requeue needs a timeout on the line
                }
                String marker = "attr-" + a.key() + "-" + verb;
                args.addAll(List.of("--", "echo", marker));
                ServeDaemon.Result r = daemon.verb(verb, args.toArray(String[]::new));
                assertFalse(r.code() == Cli.USAGE, verb + " " + args + ": " + r.err());
                // The journal keeps the line as the daemon writes it back (vram=1024, after for after-ok).
                String typed = a.bare() ? a.key() : a.key() + "=" + value;
                String token = a.sameAs().orElse(a).written(io.gpusched.jobs.JobSpec.parse("[" + typed
                        + (a == Attribute.ON_TIMEOUT ? " timeout=1h" : "") + "] x")).orElseThrow();
                assertTrue(journal().lines().anyMatch(l -> l.contains("\"event\":\"submitted\"") && l.contains(marker)
                        && l.matches(".*\"line\":\"\\[[^\\]]*\\b" + java.util.regex.Pattern.quote(token) + "\\b.*")),
                        verb + " " + args + " → " + journal());
            }
        }
    }

    @Test
    void bareGpuschedListsTheVerbs_aMistypedVerbGetsTheNearest_andAnExistingFileIsStillAJobsFile() throws Exception {
        ServeDaemon.Result bare = gpusched();
        assertEquals(Cli.USAGE, bare.code());
        for (Verbs.Verb v : Verbs.ALL) {
            assertTrue(bare.out().contains("\n  " + v.name() + " ") && bare.out().contains(v.help()), v.name());
        }
        ServeDaemon.Result typo = gpusched("qeue");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: 'qeue' is not a verb — did you mean queue? (gpusched alone"
                + " lists the verbs; a jobs file of that name is not here)\n"), typo);
        Files.writeString(dir.resolve("qeue"), "echo ran-the-jobs-file\n");
        ServeDaemon.Result file = gpusched("qeue", "--sim", "1", "--poll", "0.1", "--log-dir", dir.resolve("run").toString());
        assertEquals(0, file.code(), file.err());
        assertTrue(file.out().contains("job 1 finished [OK]") && file.out().contains("echo ran-the-jobs-file"), file.out());
    }

    @Test
    void everyVerbHasItsOwnHelpWithAnExample() throws Exception {
        for (String verb : ClientOptions.VERBS) {
            ServeDaemon.Result r = ServeDaemon.cli(verb, "--help");
            assertEquals(0, r.code(), verb);
            assertTrue(r.out().startsWith("Usage: gpusched " + verb + " "), r.out());
            assertTrue(r.out().contains("\nExample:\n  gpusched " + verb), r.out());
            assertTrue(r.out().contains(Verbs.find(verb).orElseThrow().help()), r.out());
        }
        ServeDaemon.Result srun = gpusched("srun", "-h");
        assertEquals(0, srun.code());
        for (Attribute a : Attribute.values()) {
            a.flag().ifPresent(f -> assertTrue(srun.out().contains(f.option()), f.option()));
        }
    }

    @Test
    void versionSaysTheVersionTheGitRevisionTheBuildDateAndTheJavaRuntime() throws Exception {
        for (String flag : List.of("--version", "-V", "version")) {
            ServeDaemon.Result r = gpusched(flag);
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().matches("gpusched \\S+ \\(revision ([0-9a-f]{40}|unknown), built"
                    + " ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z|unknown); Java \\S+, .+\\)\n"), r.out());
            assertTrue(r.out().contains("Java " + System.getProperty("java.runtime.version")), r.out());
        }
        // Built in this git checkout: the build wrote the revision and the date.
        if (Files.isDirectory(Path.of("..", ".git")) || Files.isRegularFile(Path.of("..", ".git"))) {
            assertFalse(gpusched("-V").out().contains("unknown"), "the build recorded revision and date");
        }
    }

    @Test
    void topTakesOptEqualsValue_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        serve();
        ServeDaemon.Result r = gpusched("top", "--socket=" + daemon.socket(), "--once", "--width=40", "--height=2");
        assertEquals(0, r.code(), r.err());
        assertEquals(2, r.out().lines().count(), r.out());
        assertTrue(r.out().lines().allMatch(l -> l.length() <= 40), r.out());
        r = gpusched("top", "--socket=" + daemon.socket(), "--intervall=2");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --intervall for gpusched top — did you mean"
                + " --interval? (see gpusched top --help)\n"), r);
    }

    @Test
    void statsTakesOptEqualsValue_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Files.writeString(logs.resolve("journal.jsonl"), "");
        Path plot = dir.resolve("plot.svg");
        ServeDaemon.Result r = gpusched("stats", "--log-dir=" + logs, "--since=7d", "--plot=" + plot, "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("{") && r.out().contains("plot.svg"), r.out());
        assertTrue(Files.readString(plot).startsWith("<svg") || Files.readString(plot).contains("<svg"), "plot written");
        r = gpusched("stats", "--log-dir=" + logs, "--sinse=7d");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched stats: unknown option --sinse for gpusched stats — did you"
                + " mean --since? (see gpusched stats --help)\n"), r);
    }

    @Test
    void simulateTakesOptEqualsValue_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "true\n");
        ServeDaemon.Result r = gpusched("simulate", jobs.toString(), "--gpus-spec=2x80G", "--default-duration=5s", "--jobs");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("simulated 1 jobs on 2 GPUs (2 x 81920 MiB)"), r.out());
        assertTrue(r.out().contains("makespan 5.00s"), r.out());
        r = gpusched("simulate", jobs.toString(), "--gpus-spc=2x80G");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --gpus-spc for gpusched simulate — did you"
                + " mean --gpus-spec? (see gpusched simulate --help)\n"), r);
    }

    @Test
    void doctorTakesOptEqualsValue_andServesSimN_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        Path conf = dir.resolve("none.conf");
        ServeDaemon.Result r = gpusched("doctor", "--sim", "2", "--config=" + conf, "--log-dir=" + dir.resolve("state"),
                "--socket=" + dir.resolve("run/gpusched.sock"));
        assertTrue(r.code() == 0 || r.code() == 1, r.code() + " " + r.err());
        assertEquals("", r.err());
        assertTrue(r.out().contains("note     GPU backend: --sim: GPUs are simulated"), r.out());
        assertTrue(r.out().contains("note     configuration: no " + conf + ": the daemon runs on its flags alone"), r.out());
        r = gpusched("doctor", "--confg=" + conf);
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --confg for gpusched doctor — did you mean"
                + " --config? (see gpusched doctor --help)\n"), r);
        r = gpusched("doctor", "--sim", "two");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: doctor takes no argument 'two' (see gpusched doctor --help)\n"), r);
        r = gpusched("doctor", "--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("Usage: gpusched doctor ") && r.out().contains("--config=FILE")
                && r.out().contains("Example:\n  gpusched doctor\n"), r.out());
    }

    @Test
    void convertTakesOptEqualsValue_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        Path csv = Files.writeString(dir.resolve("jobs.csv"), "0,/a.py,,,\n");
        assertEquals(new ServeDaemon.Result(0, "[unique] python /a.py\n", ""), gpusched("convert", "--from=gpu_scheduler", csv.toString()));
        assertEquals(new ServeDaemon.Result(0, "[unique] python /a.py\n", ""), gpusched("convert", csv.toString(), "--from", "gpu_scheduler"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --form for gpusched convert — did you mean"
                + " --from? (see gpusched convert --help)\n"), gpusched("convert", "--form=gpu_scheduler", csv.toString()));
        ServeDaemon.Result help = gpusched("convert", "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Usage: gpusched convert ") && help.out().contains("--from=TOOL")
                && help.out().contains("Example:\n  gpusched convert --from gpu_scheduler jobs.csv\n"), help.out());
    }

    @Test
    void serveHasItsOwnHelpWithAnExample_takesOptEqualsValue_andAMisspeltOptionIsAnsweredWithTheNearestOne() throws Exception {
        ServeDaemon.Result help = gpusched("serve", "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Usage: gpusched serve "), help.out());
        assertTrue(help.out().contains("\nExample:\n  gpusched serve --sim 2 --socket /tmp/gpusched.sock\n"), help.out());
        // its own options and those it shares with a run, one line each, and its configuration file
        for (String line : List.of("\n  --admin-group G ", "\n  --stop-jobs-on-exit ", "\n  --config FILE ",
                "\n  --margin MIB ", "\n  -v, --verbose ", "\nConfiguration file:\n")) {
            assertTrue(help.out().contains(line), line + " in " + help.out());
        }
        assertFalse(help.out().contains("--executor"), "a run's own option is not serve's: " + help.out());
        ServeDaemon.Result run = gpusched("--help");
        assertTrue(run.out().startsWith("Usage: gpusched JOBS_FILE [options]\n") && !run.out().contains("--admin-group G ")
                && run.out().contains("\nExample:\n  " + CliArgs.RUN_EXAMPLE + "\n"), run.out());

        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --margn for gpusched serve — did you mean"
                + " --margin? (see gpusched serve --help)\n"), gpusched("serve", "--config=/dev/null", "--margn=512"));
        // --opt=value reaches the value's check, as --opt value does
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --max-connections must be 1 to 1000000 connections, got 0\n"),
                gpusched("serve", "--config=/dev/null", "--max-connections=0"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: serve takes no jobs file argument; to watch one too, use"
                + " --jobs jobs.txt (see gpusched serve --help)\n"), gpusched("serve", "--config", "/dev/null", "jobs.txt"));
    }

    @Test
    void aRunTakesOptEqualsValue_aServeOptionIsSaidToBeServes_andAMisspeltOptionIsAnsweredWithTheNearestOne()
            throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "echo ran-it\n");
        ServeDaemon.Result r = gpusched("jobs.txt", "--sim=1", "--poll=0.1", "--log-dir=" + dir.resolve("logs"));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("job 1 finished [OK]"), r.out());
        assertTrue(Files.isRegularFile(dir.resolve("logs/journal.jsonl")), "--log-dir=DIR was taken");
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --simm — did you mean --sim? (see gpusched"
                + " --help)\n"), gpusched(jobs.toString(), "--simm=1"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --admin-group is an option of gpusched serve\n"),
                gpusched(jobs.toString(), "--admin-group", "gpuadmin"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: one jobs file only; 'more.txt' is a second (see gpusched"
                + " --help)\n"), gpusched(jobs.toString(), "more.txt"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --poll needs a value (see gpusched --help)\n"),
                gpusched(jobs.toString(), "--poll"));
    }

    @Test
    void everyVerbsHelpEndsItsUsageWithAnExampleOfThatVerb_andARunsHelpWithOneOfARun() throws Exception {
        for (Verbs.Verb v : Verbs.ALL) {
            ServeDaemon.Result r = ServeDaemon.cli(v.name(), "--help");
            assertEquals(0, r.code(), v.name() + ": " + r.err());
            assertTrue(r.out().contains("\nExample:\n  " + v.example() + "\n"), v.name() + " --help:\n" + r.out());
            assertTrue(v.example().startsWith("gpusched " + v.name()), v.example());
        }
        ServeDaemon.Result run = ServeDaemon.cli("--help");
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("\nExample:\n  gpusched examples/demo.txt "), run.out());
        assertEquals(run, ServeDaemon.cli("help"), "gpusched help prints what gpusched --help does");
    }

    @Test
    void aPendingRowShowsTheGpusItAsksFor_asItsLineSaysThem_andHowLongItHasWaitedSoFar() throws Exception {
        serve();
        String socket = daemon.socket().toString();
        assertEquals(0, daemon.verb("pause", "0").code());
        assertEquals(0, daemon.verb("pause", "1").code());
        assertEquals(0, gpusched("submit", "--socket", socket, "--gpus", "2", "--", "true").code());
        assertEquals(0, gpusched("submit", "--socket", socket, "--gpu-ids", "1", "--", "true").code());
        assertEquals(0, gpusched("submit", "--socket", socket, "--gpus=0.5", "--", "true").code());
        daemon.awaitQueue("0 running, 3 pending, 0 done");
        Thread.sleep(1500);
        ServeDaemon.Result first = gpusched("queue", "--socket", socket, "--format", "job,state,gpus,time");
        assertEquals(0, first.code(), first.err());
        List<String> rows = first.out().lines().toList();
        assertEquals(4, rows.size(), first.out());
        assertTrue(rows.get(1).matches("1 +pending +2 +\\d+s"), first.out());
        assertTrue(rows.get(2).matches("2 +pending +1 on 1 +\\d+s"), first.out());
        assertTrue(rows.get(3).matches("3 +pending +0\\.5 +\\d+s"), first.out());
        long waited = Long.parseLong(rows.get(1).replaceAll(".* (\\d+)s$", "$1"));
        assertTrue(waited >= 1, first.out());
        Thread.sleep(2000);
        String later = gpusched("queue", "--socket", socket, "--format", "%i %M").out().lines().toList().get(1);
        assertTrue(Long.parseLong(later.replaceAll(".* (\\d+)s$", "$1")) >= waited + 1, "it goes on counting: " + later);
        daemon.verb("cancel", "--user", "me");
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }
}
