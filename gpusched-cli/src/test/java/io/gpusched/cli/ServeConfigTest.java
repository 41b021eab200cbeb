package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gpusched serve's configuration file: what a line may say, what it becomes, and how a mistake is reported. */
class ServeConfigTest {
    @TempDir
    Path dir;

    private static final Path FILE = Path.of("/etc/gpusched/gpusched.conf");

    private static List<String> argv(String text) {
        return ServeConfig.parse(text, FILE).argv();
    }

    private static String error(String text) {
        return assertThrows(UsageException.class, () -> ServeConfig.parse(text, FILE)).getMessage();
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("gpusched.conf");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        return f;
    }

    @Test
    void keysAreServesLongOptionsWithoutDashes_valuedOnesAfterAnEqualsSign_flagsBare() {
        assertEquals(List.of("--poll", "5", "--exclusive", "--admin-group", "gpu-admins", "--socket", "/run/x/s.sock"),
                argv("poll = 5\nexclusive\nadmin-group=gpu-admins\nsocket =   /run/x/s.sock   \n"));
    }

    @Test
    void commentsAndBlankLinesAreSkipped_andACommentMayFollowAValueAfterASpace() {
        assertEquals(List.of("--margin", "1024", "--on-finish", "echo a#b"),
                argv("# the margin\n\n   # indented comment\nmargin = 1024   # MiB\non-finish = echo a#b\n"));
    }

    @Test
    void quotesKeepHashesAndSpaces_doubleQuotesTakeBackslashEscapes() {
        assertEquals(List.of("--on-finish", " notify-send 'job done' #1 ", "--events", "a \"b\" \\c", "--requirements",
                        "it's # \\n"),
                argv("on-finish = \" notify-send 'job done' #1 \"  # why\nevents = \"a \\\"b\\\" \\\\c\"\n"
                        + "requirements = \"it's # \\n\"\n"));
        assertEquals(List.of("--on-finish", "say \"hi\" # there"), argv("on-finish = 'say \"hi\" # there'"));
    }

    @Test
    void aFlagTakesTrueOrFalse_falseLeavesItOff() {
        assertEquals(List.of("--exclusive"), argv("exclusive = true\nauto-vram = no\n"));
        assertEquals("/etc/gpusched/gpusched.conf:1: exclusive is a flag: write it alone, or exclusive = true or false,"
                + " not 'maybe'", error("exclusive = maybe"));
    }

    @Test
    void anUnknownKeyIsAnErrorWithFileLineAndADidYouMean() {
        assertEquals("/etc/gpusched/gpusched.conf:3: unknown key 'admin-grup' — did you mean admin-group? (keys are"
                + " gpusched serve's long options without --; see gpusched --help)",
                error("# comment\npoll = 5\nadmin-grup = gpu\n"));
        assertTrue(error("frobnicate = 1").startsWith("/etc/gpusched/gpusched.conf:1: unknown key 'frobnicate' (keys"),
                "no suggestion when nothing is close");
    }

    @Test
    void bytesThatAreNotUtf8AreRefusedNamingTheLine_notTheDecodersMessage() throws Exception {
        Path f = file("");
        Files.write(f, "poll = 1\nmargin = 1024\u00ff\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals(f + ":2: line is not valid UTF-8; save the configuration file as UTF-8",
                assertThrows(UsageException.class, () -> ServeConfig.read(f, true)).getMessage());
    }

    @Test
    void aNulByteIsRefusedNamingTheLine_notDroppedUnseen() {
        assertEquals("/etc/gpusched/gpusched.conf:2: NUL byte in line; remove it", error("exclusive\npoll = 1\0\n"));
    }

    @Test
    void aKeyWrittenWithDashesIsRefusedWithTheSpellingToUse() {
        assertEquals("/etc/gpusched/gpusched.conf:1: write the key without dashes: poll = ...", error("--poll = 5"));
    }

    @Test
    void freshIsRefused_itWouldRemoveTheJournalAtEveryStart() {
        assertTrue(error("fresh").contains("fresh would remove the journal at every start"), error("fresh"));
    }

    @Test
    void aValuedKeyWithoutAValue_aKeySetTwice_andAnUnclosedQuoteAreErrors() {
        assertEquals("/etc/gpusched/gpusched.conf:1: poll needs a value: poll = VALUE (see gpusched --help)", error("poll"));
        assertEquals("/etc/gpusched/gpusched.conf:2: poll is already set on line 1; keep one", error("poll = 1\npoll = 2"));
        assertEquals("/etc/gpusched/gpusched.conf:1: on-finish's value has no closing \"", error("on-finish = \"echo"));
        assertEquals("/etc/gpusched/gpusched.conf:1: text after on-finish's quoted value: 'x'; put it inside the quotes,"
                + " or after a #", error("on-finish = 'echo' x"));
    }

    @Test
    void theCommandLineWinsOverTheFile_andTheFilesFlagsApply() throws Exception {
        Path f = file("poll = 5\nmargin = 2048\nexclusive\n");
        CliArgs args = ServeConfig.parseServe("--config", f.toString(), "--poll", "0.5");
        assertEquals(Duration.ofMillis(500), args.options().poll());
        assertEquals(2048, args.options().marginMib());
        assertTrue(args.options().exclusive());
        assertEquals(Duration.ofSeconds(5), ServeConfig.parseServe("--config=" + f).options().poll());
    }

    @Test
    void aBadValueInTheFileIsReportedWithTheLineThatSetIt() throws Exception {
        Path f = file("# x\npoll = soon\n");
        UsageException e = assertThrows(UsageException.class, () -> ServeConfig.parseServe("--config", f.toString()));
        assertEquals("--poll needs a number, got 'soon' (--poll from " + f + ":2)", e.getMessage());
    }

    @Test
    void aNamedFileMustExist_devNullReadsNone_aMissingDefaultIsNoConfiguration() {
        UsageException e = assertThrows(UsageException.class,
                () -> ServeConfig.parseServe("--config", dir.resolve("nope.conf").toString()));
        assertTrue(e.getMessage().startsWith("configuration file " + dir.resolve("nope.conf") + " not found"), e.getMessage());
        assertEquals(List.of(), ServeConfig.read(Path.of("/dev/null"), true).argv());
        assertEquals(List.of(), ServeConfig.read(dir.resolve("absent.conf"), false).argv());
        assertEquals("--config needs a file (see gpusched --help)",
                assertThrows(UsageException.class, () -> ServeConfig.parseServe("--config")).getMessage());
    }

    @Test
    void helpAndVersionPrintEvenWhenTheFileIsBroken() throws Exception {
        Path f = file("no-such-key = 1\n");
        assertTrue(ServeConfig.parseServe("--config", f.toString(), "--help").help());
        assertTrue(ServeConfig.parseServe("--version", "--config", f.toString()).version());
        assertThrows(UsageException.class, () -> ServeConfig.parseServe("--config", f.toString()));
    }

    @Test
    void aFileOthersMayWriteIsRefused_itsOnFinishWouldRunAsTheDaemon() throws Exception {
        Path f = file("poll = 5\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-r--"));
        UsageException e = assertThrows(UsageException.class, () -> ServeConfig.read(f, true));
        assertTrue(e.getMessage().endsWith("chmod go-w " + f), e.getMessage());
    }

    @Test
    void rootsDaemonReadsTheSystemFile_othersTheirXdgConfigHome() {
        Path expected = "root".equals(System.getProperty("user.name")) ? Path.of("/etc/gpusched/gpusched.conf")
                : Path.of(Optional.ofNullable(System.getenv("XDG_CONFIG_HOME")).filter(x -> x.startsWith("/"))
                        .orElse(System.getProperty("user.home") + "/.config"), "gpusched", "gpusched.conf");
        assertEquals(expected, ServeConfig.defaultFile());
    }

    @Test
    void everyServeOptionIsAKey_butNotTheOnesThatMakeNoSenseInAFile() {
        var keys = ServeConfig.keys();
        for (String k : List.of("poll", "margin", "exclusive", "socket", "jobs", "admin-group", "log-dir", "dashboard",
                "on-finish", "sim")) {
            assertTrue(keys.containsKey(k), k);
        }
        for (String k : List.of("fresh", "config", "help", "version", "executor")) {
            assertFalse(keys.containsKey(k), k);
        }
        assertEquals(Optional.of("PATH"), keys.get("socket"));
        assertEquals(Optional.empty(), keys.get("exclusive"));
    }

    @Test
    void theShippedExampleSetsNothing_andEachOfItsCommentedLinesNamesAKey() {
        String example = DistDocs.exampleConfig();
        assertEquals(List.of(), argv(example));
        List<String> settings = example.lines().filter(l -> l.matches("#[a-z].*")).toList();
        assertEquals(ServeConfig.keys().size(), settings.size(), example);
        for (String line : settings) {
            String key = line.substring(1).split(" ")[0];
            assertTrue(ServeConfig.keys().containsKey(key), line);
        }
        // Uncommented, the numeric defaults are values the options take.
        assertEquals(List.of("--margin", "512", "--poll", "5", "--reserve-after", "30m"),
                argv(example.lines().filter(l -> l.matches("#(poll|margin|reserve-after) = .*"))
                        .map(l -> l.substring(1)).reduce("", (a, b) -> a + b + "\n")));
    }
    @Test
    void everyOptionServesHelpListsIsAKeyOrOneThatMakesNoSenseInAFile_andTheExampleFileHasALineForEachKey() {
        java.util.Set<String> listed = new java.util.LinkedHashSet<>();
        HelpText.options(CliArgs.help(true)).forEach(o -> listed.add(o.name()));
        assertTrue(listed.size() >= 40, listed.toString());
        java.util.Set<String> keys = new java.util.LinkedHashSet<>(ServeConfig.keys().keySet());
        java.util.Set<String> left = new java.util.LinkedHashSet<>(listed);
        left.removeAll(keys);
        assertEquals(java.util.Set.of("config", "help", "version", "fresh"), left);
        String example = DistDocs.exampleConfig();
        for (String key : keys) {
            assertTrue(example.contains("\n#" + key + "\n") || example.contains("\n#" + key + " = "), key);
        }
    }
}
