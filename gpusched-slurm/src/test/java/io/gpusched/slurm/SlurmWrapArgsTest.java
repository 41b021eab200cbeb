package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code gpusched slurm-wrap}'s command line: read as typed, or refused in one line, never a stack trace. */
class SlurmWrapArgsTest {

    private static String refusal(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, SlurmWrap.run(List.of(args), new PrintStream(err, true, StandardCharsets.UTF_8)));
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, said.lines().count(), said);
        return said;
    }

    @Test
    void aSampleThatIsNotANumberOfSecondsIsRefused_notAStackTraceNorASilentTenMilliseconds() {
        assertTrue(refusal("--out", "/tmp/x", "--sample", "abc", "--", "true")
                .startsWith("gpusched slurm-wrap: --sample must be more than 0 and at most 86400 seconds, got abc; usage:"));
        for (String bad : List.of("NaN", "-5", "0", "Infinity", "86401", "1e9")) {
            assertTrue(refusal("--out", "/tmp/x", "--sample", bad, "--", "true").contains("--sample must be"), bad);
        }
    }

    @Test
    void anOptionGivenTwiceIsRefused_notTheLastTakenUnsaid() {
        assertTrue(refusal("--out", "/tmp/a", "--out", "/tmp/b", "--", "true")
                .contains("--out given twice (/tmp/a, /tmp/b): give it once"));
        assertTrue(refusal("--out", "/tmp/a", "--backend-option", "gpus=2", "--backend-option=gpus=4", "--", "true")
                .contains("--backend-option gpus given twice (2, 4): give it once"));
    }

    @Test
    void valuesAfterEqualsReadAsTheNextWordDoes() {
        SlurmWrap.WrapArgs a = SlurmWrap.WrapArgs.parse(List.of("--out=/tmp/o", "--backend=sim", "--backend-option=gpus=2",
                "--sample=0.5", "--", "sh", "-c", "--out x"));
        assertEquals(new SlurmWrap.WrapArgs(Path.of("/tmp/o"), Optional.empty(), Optional.empty(), Optional.of("sim"),
                Map.of("gpus", "2"),
                Duration.ofMillis(500), List.of("sh", "-c", "--out x")), a);
        assertEquals(Duration.ofMillis(10), SlurmWrap.WrapArgs.parse(List.of("--out", "o", "--sample", "0.001", "--", "t"))
                .sample(), "sampled no faster than every 10 ms, as before");
    }

    /** One option as typed: its name, its value, and whether it was written {@code --name=value}. */
    private record Word(String name, String value, boolean inline) {
        List<String> words() {
            return inline ? List.of(name + "=" + value) : List.of(name, value);
        }
    }

    private record Line(List<Word> options, List<String> command) {
        List<String> args() {
            List<String> out = new ArrayList<>();
            options.forEach(w -> out.addAll(w.words()));
            out.add("--");
            out.addAll(command);
            return out;
        }
    }

    /** Sample values whose fate is known without parsing them. */
    private static final Map<String, Optional<Duration>> SAMPLES = Map.of(
            "0.05", Optional.of(Duration.ofMillis(50)), "1", Optional.of(Duration.ofSeconds(1)),
            "86400", Optional.of(Duration.ofDays(1)), "1e3", Optional.of(Duration.ofSeconds(1000)),
            "0.001", Optional.of(Duration.ofMillis(10)), "0", Optional.empty(), "-1", Optional.empty(),
            "NaN", Optional.empty(), "86400.5", Optional.empty(), "x", Optional.empty());

    private static Gen<Line> lines() {
        Gen<String> name = Gen.elements("--out", "--job-no", "--job-key", "--backend", "--backend-option", "--sample",
                "--bogus", "-o");
        Gen<String> plain = Gen.elements("/tmp/o", "sim", "nvml", "a b", "é", "--out", "-x", "=", "k");
        Gen<String> keyValue = Gen.elements("gpus=2", "gpus=4", "mib=80000", "=2", "noequals", "a==b");
        Gen<Word> word = name.flatMap(n -> {
            Gen<String> value = switch (n) {
                case "--sample" -> Gen.elements(List.copyOf(SAMPLES.keySet()));
                case "--backend-option" -> keyValue;
                case "--job-no" -> Gen.elements("7", "1234567890", "0", "07", "-1", "12345678901", "x", "");
                default -> Gen.<String>weighted().add(8, plain).add(1, Gen.constant("")).build();
            };
            return value.with(Gen.booleans(), (v, inline) -> new Word(n, v, inline));
        });
        Gen<List<String>> command = Gen.listOf(Gen.elements("true", "--", "--out", "-c", "echo hi"), 0, 3);
        return Gen.listOf(word, 0, 5).with(command, Line::new);
    }

    /** What the wrapper should make of a line, worked out from the words alone; empty when it refuses. */
    private static Optional<SlurmWrap.WrapArgs> expected(Line l) {
        Map<String, String> given = new LinkedHashMap<>();
        Map<String, String> backendOptions = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Word w : l.options()) {
            if (!Set.of("--out", "--job-no", "--job-key", "--backend", "--backend-option", "--sample").contains(w.name())
                    || w.value().isEmpty()) {
                return Optional.empty();
            }
            if (w.name().equals("--backend-option")) {
                int eq = w.value().indexOf('=');
                if (eq < 1 || backendOptions.putIfAbsent(w.value().substring(0, eq), w.value().substring(eq + 1)) != null) {
                    return Optional.empty();
                }
            } else if (!seen.add(w.name())) {
                return Optional.empty();
            } else {
                given.put(w.name(), w.value());
            }
        }
        if (!given.containsKey("--out") || l.command().isEmpty()) {
            return Optional.empty();
        }
        if (given.containsKey("--job-no") && !Set.of("7", "1234567890").contains(given.get("--job-no"))) {
            return Optional.empty(); // a job number: 1 to 10 digits, no leading 0
        }
        Optional<Duration> sample = given.containsKey("--sample") ? SAMPLES.get(given.get("--sample"))
                : Optional.of(Duration.ofMillis(200));
        return sample.map(s -> new SlurmWrap.WrapArgs(Path.of(given.get("--out")), Optional.ofNullable(given.get("--job-no")),
                Optional.ofNullable(given.get("--job-key")), Optional.ofNullable(given.get("--backend")),
                backendOptions, s, l.command()));
    }

    @Test
    void everyLineIsReadAsTyped_orRefusedInOneLine() {
        Property.forAll(lines()).tries(3000).check(l -> {
            Optional<SlurmWrap.WrapArgs> want = expected(l);
            if (want.isPresent()) {
                assertEquals(want.get(), SlurmWrap.WrapArgs.parse(l.args()), l.args().toString());
            } else {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> SlurmWrap.WrapArgs.parse(l.args()), l.args().toString());
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
            }
        });
    }
}
