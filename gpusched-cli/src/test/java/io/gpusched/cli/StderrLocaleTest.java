package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
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
 * Standard error follows {@code gpusched queue}'s locale rule ({@link LocaleText}), as every verb's
 * standard output already did: under a locale that names another charset (C, POSIX, Latin-1) the
 * errors (which quote what was typed, and say {@code —}) and {@code srun}'s status lines (which say
 * {@code ≥}) are plain ASCII; a job's own output, which {@code srun}'s command writes to the terminal
 * itself, is the program's bytes. The real CLI as a process, each with its own locale.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
class StderrLocaleTest {
    private static final List<Map<String, String>> NOT_UTF8 = List.of(Map.of("LANG", "C"),
            Map.of("LC_ALL", "en_US.ISO-8859-1", "LANG", "C.UTF-8"), Map.of("LC_ALL", "POSIX"));

    @TempDir
    Path dir;

    ServeDaemon daemon;

    /** {@code gpusched ARGS} as a process with no locale variable but those of {@code env}. */
    private ProcessBuilder gpusched(Map<String, String> env, String... args) {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG", "COLUMNS")) {
            pb.environment().remove(v);
        }
        pb.environment().putAll(env);
        return pb;
    }

    private Result run(Map<String, String> env, String... args) throws Exception {
        return ServeDaemon.result(gpusched(env, args).start());
    }

    private static boolean ascii(String s) {
        return s.chars().allMatch(c -> c < 0x80);
    }

    @Test
    void anArgumentTheLocaleCannotCarry_isRefusedInOneLineNamingIt_notAStackTraceNorARunWithWhatWasNotTyped()
            throws Exception {
        // Before: an InvalidPathException's stack trace for a path; a command submitted with U+FFFD in it.
        Result r = run(Map.of("LANG", "C"), "./jobs-\u00e9.txt");
        assertEquals(2, r.code(), r.toString());
        assertEquals("", r.out());
        assertEquals("gpusched: argument 1 ('./jobs-??.txt') holds characters the locale's charset (ANSI_X3.4-1968) cannot"
                + " carry, so they were lost before gpusched saw them; run it under a UTF-8 locale, e.g. LC_ALL=C.UTF-8"
                + " gpusched ...\n", r.err());
        Result submit = run(Map.of("LC_ALL", "POSIX"), "submit", "--socket", dir.resolve("none.sock").toString(), "--",
                "echo h\u00e9llo");
        assertEquals(2, submit.code(), submit.toString());
        assertTrue(submit.err().startsWith("gpusched: argument 5 ('echo h??llo') holds characters"), submit.err());
        // Under UTF-8 the same path is read as typed: no such file, said as such.
        Result utf8 = run(Map.of("LANG", "C.UTF-8"), "./jobs-\u00e9.txt");
        assertEquals(2, utf8.code(), utf8.toString());
        assertTrue(utf8.err().contains("jobs-\u00e9.txt"), utf8.err());
        assertTrue(!utf8.err().contains("cannot carry"), utf8.err());
    }

    @Test
    void lostArgument_isNeverSaidUnderUtf8_whereAReplacementCharacterMayBeTyped() {
        assertEquals(java.util.Optional.empty(), Main.lostArgument(new String[] {"echo \uFFFD"}, "UTF-8"));
        assertEquals(java.util.Optional.empty(), Main.lostArgument(new String[] {"plain", "ascii"}, "ANSI_X3.4-1968"));
        assertTrue(Main.lostArgument(new String[] {"ok", "x\uFFFD"}, "ANSI_X3.4-1968").orElseThrow().startsWith("argument 2 "));
    }

    @Test
    void errors_underALocaleThatIsNotUtf8_areAscii_andUtf8Otherwise() throws Exception {
        String none = dir.resolve("none.sock").toString();
        for (Map<String, String> locale : NOT_UTF8) {
            Result typo = run(locale, "queu");
            assertEquals(2, typo.code(), locale + ": " + typo);
            assertTrue(typo.err().startsWith("gpusched: 'queu' is not a verb - did you mean queue?"), locale + ": " + typo.err());
            Result option = run(locale, "info", "--sockt", none);
            assertTrue(option.err().contains("unknown option --sockt for gpusched info - did you mean --socket?"),
                    locale + ": " + option.err());
            // What the user typed, quoted back: not UTF-8 either. Where Java decoded the locale's argv as ASCII
            // (a locale this machine lacks falls back to it) the characters were lost: refused as such.
            Result after = run(locale, "submit", "--socket", none, "--after", "wörld", "--", "true");
            assertTrue(after.err().startsWith("gpusched: bad --after 'w")
                    || after.err().startsWith("gpusched: argument 5 ('w??rld') holds characters"), locale + ": " + after.err());
            for (Result r : List.of(typo, option, after)) {
                assertTrue(ascii(r.err()), locale + ": " + r.err());
            }
        }
        Result utf8 = run(Map.of("LANG", "en_US.UTF-8"), "queu");
        assertTrue(utf8.err().startsWith("gpusched: 'queu' is not a verb — did you mean queue?"), utf8.err());
        Result unset = run(Map.of(), "queu");
        assertTrue(unset.err().startsWith("gpusched: 'queu' is not a verb — did you mean queue?"), unset.err());
    }

    /**
     * {@code srun} under LANG=C: its waiting line's {@code ≥} is {@code >=}, every line it says is ASCII,
     * and the command's own {@code héllo ✓} reaches its standard output as the command wrote it.
     */
    @Test
    void srunsStatusLines_underLangC_areAscii_butItsCommandsOutputIsItsOwnBytes() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        assertEquals(0, daemon.verb("submit", "--vram", "20G", "--", "sleep", "60").code());
        daemon.awaitQueue("▶ job 1");
        Path out = dir.resolve("srun.out");
        Path err = dir.resolve("srun.err");
        Process srun = gpusched(Map.of("LANG", "C"), "srun", "--socket", daemon.socket().toString(), "--vram", "20G", "--",
                "printf 'h\\303\\251llo \\342\\234\\223\\n'").redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    !Files.readString(err, StandardCharsets.ISO_8859_1).contains("pending:"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end && srun.isAlive(), "srun never said it waits: "
                        + Files.readString(err, StandardCharsets.ISO_8859_1));
            }
            assertEquals(0, daemon.verb("cancel", "1").code());
            assertTrue(srun.waitFor(60, TimeUnit.SECONDS), "srun did not end");
        } finally {
            srun.destroyForcibly();
        }
        String said = new String(Files.readAllBytes(err), StandardCharsets.UTF_8);
        assertEquals(0, srun.exitValue(), said);
        assertTrue(ascii(said), said);
        assertTrue(said.contains("gpusched: job 2 waits, 1 of 1 pending: needs 1 GPU with >= "), said);
        assertTrue(said.contains("gpusched: job 2 granted gpu [0]") && said.contains("gpusched: job 2 ok in "), said);
        assertEquals("héllo ✓\n", new String(Files.readAllBytes(out), StandardCharsets.UTF_8));
    }
}
