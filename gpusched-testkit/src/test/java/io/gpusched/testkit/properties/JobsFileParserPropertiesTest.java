package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.jobs.DidYouMean;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.RunEnvironment;
import io.gpusched.jobs.Scheduling;
import io.gpusched.jobs.Units;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The jobs-file parser, {@link JobSpec#toLine()}, {@link Units} and identity keys, each over 1,000 generated inputs. */
class JobsFileParserPropertiesTest {
    private static final int TRIES = 1000;

    // ---- robustness ------------------------------------------------------------------------------

    @Test
    void anyTextEitherParsesOrRaisesJobSpecException_asAFileAndAsOneLine() {
        Property.forAll(JobSpecArbitraries.anyText()).tries(TRIES).check(text -> {
            parsesOrTypedError(() -> JobsFileParser.parse(text, "jobs.txt"));
            parsesOrTypedError(() -> JobSpec.parse(text));
        });
    }

    @Test
    void nearValidHostileLinesEitherParseOrRaiseJobSpecException() {
        Property.forAll(JobSpecArbitraries.nearValidLines()).tries(TRIES).check(line -> {
            parsesOrTypedError(() -> JobSpec.parse(line));
            parsesOrTypedError(() -> JobsFileParser.parse("python ok.py\r\n" + line + "\n", "jobs.txt"));
        });
    }

    @Test
    void everyParseErrorIsOneLineNamingTheSourceAndTheOffendingLine() {
        Gen<List<String>> files = Gen.listOf(Gen.oneOf(JobSpecArbitraries.nearValidLines(), JobSpecArbitraries.anyText()), 1, 6);
        Property.forAll(files).tries(TRIES).check(lines -> {
            String text = String.join("\n", lines);
            try {
                JobsFileParser.parse(text, "jobs.txt");
            } catch (JobSpecException e) {
                assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\r"), "one line: " + e.getMessage());
                assertTrue(e.getMessage().startsWith("jobs.txt:" + e.line() + ": "), e.getMessage());
                // The lines before the reported one parse on their own: the error names the first bad line.
                JobsFileParser.parse(text.substring(0, offsetOfLine(text, e.line())), "jobs.txt");
            }
        });
    }

    @Test
    void everyBadLineIsReportedInFileOrder_exactlyTheLinesThatFailOnTheirOwn_upToTheBound() {
        Gen<String> line = Gen.<String>weighted().add(3, JobSpecArbitraries.nearValidLines())
                .add(1, JobSpecArbitraries.independentJobSpecs().map(JobSpec::toLine)).add(1, Gen.elements("", "# note")).build();
        Property.forAll(Gen.listOf(line, 0, 40)).tries(TRIES).check(lines -> {
            String text = String.join("\n", lines);
            // Each line's own error, as "N: message", from parsing it alone (after a comment, so that a
            // BOM-like first character is not taken for the file's BOM, except on line 1).
            List<String> expected = new ArrayList<>();
            String[] physical = text.split("\n", -1);
            for (int i = 0; i < physical.length; i++) {
                try {
                    JobsFileParser.parse(i == 0 ? physical[0] : "# pad\n" + physical[i], "jobs.txt");
                } catch (JobSpecException alone) {
                    expected.add((i + 1) + alone.getMessage().substring(("jobs.txt:" + (i == 0 ? 1 : 2)).length()));
                }
            }
            try {
                JobsFileParser.parse(text, "jobs.txt");
                assertEquals(List.of(), expected, "the file parsed, but these lines fail on their own");
            } catch (JobSpecException e) {
                List<String> reported = e.errors().stream().map(x -> x.getMessage().substring("jobs.txt:".length())).toList();
                assertEquals(expected.subList(0, Math.min(expected.size(), JobsFileParser.MAX_REPORTED_ERRORS)), reported);
                assertEquals(expected.size(), e.badLines());
                assertEquals(e.getMessage(), e.errors().get(0).getMessage(), "the message is the first bad line's");
            }
        });
    }

    // ---- values ----------------------------------------------------------------------------------

    @Test
    void vramValueIsReadExactlyAsTheReadmeDefinesIt_orRejectedWithATypedError() {
        Property.forAll(hostileValues()).tries(TRIES).check(value -> {
            OptionalLong expected = UnitsOracle.mib(value);
            Optional<JobSpec> parsed = tryParse("[vram=" + value + "] python x.py");
            if (expected.isPresent()) {
                assertEquals(expected, parsed.orElseThrow(() -> new AssertionError("rejected vram=" + value)).vramMib());
            } else {
                assertTrue(parsed.isEmpty(), "accepted vram=" + value + " as " + parsed.map(JobSpec::vramMib));
            }
        });
    }

    @Test
    void timeoutValueIsReadExactlyToTheNanosecond_orRejectedWithATypedError() {
        Property.forAll(hostileValues()).tries(TRIES).check(value -> {
            Optional<Duration> expected = UnitsOracle.duration(value);
            Optional<JobSpec> parsed = tryParse("[timeout=" + value + "] python x.py");
            if (expected.isPresent()) {
                assertEquals(expected, parsed.orElseThrow(() -> new AssertionError("rejected timeout=" + value)).timeout());
            } else {
                assertTrue(parsed.isEmpty(), "accepted timeout=" + value + " as " + parsed.map(JobSpec::timeout));
            }
        });
    }

    @Test
    void gpusAndRetriesAreNeverReadAsAnythingButTheirExactValueInRange() {
        Property.forAll(hostileValues()).tries(TRIES).check(value -> {
            Optional<BigInteger> exact = UnitsOracle.integer(value);
            Optional<JobSpec> gpus = tryParse("[gpus=" + value + "] python x.py");
            // A decimal strictly between 0 and 1 (at most 9 digits after the point) is a share of one GPU.
            Optional<java.math.BigDecimal> share = value.matches("[0-9]*\\.[0-9]+|[0-9]+\\.[0-9]*")
                    ? Optional.of(new java.math.BigDecimal(value.endsWith(".") ? value + "0" : value))
                    .filter(d -> d.signum() > 0 && d.compareTo(java.math.BigDecimal.ONE) < 0 && d.stripTrailingZeros().scale() <= 9)
                    : Optional.empty();
            if (share.isPresent()) {
                assertEquals(share.get().stripTrailingZeros(), gpus.orElseThrow(() -> new AssertionError("refused gpus=" + value))
                        .share().orElseThrow().fraction(), "gpus=" + value);
                assertEquals(1, gpus.get().gpus());
            } else {
                gpus.ifPresent(s -> assertEquals(exact.orElseThrow(() -> new AssertionError("accepted gpus=" + value)),
                        BigInteger.valueOf(s.gpus()), "gpus=" + value));
                assertTrue(gpus.isEmpty() || gpus.get().share().isEmpty(), "gpus=" + value);
            }
            if (share.isEmpty() && (exact.isEmpty() || exact.get().compareTo(BigInteger.ONE) < 0
                    || exact.get().compareTo(BigInteger.valueOf(JobsFileParser.MAX_GPUS)) > 0)) {
                assertTrue(gpus.isEmpty(), "accepted out-of-range gpus=" + value);
            }
            Optional<JobSpec> retries = tryParse("[retries=" + value + "] python x.py");
            retries.ifPresent(s -> assertEquals(exact.orElseThrow(() -> new AssertionError("accepted retries=" + value)),
                    BigInteger.valueOf(s.retries()), "retries=" + value));
            if (exact.isEmpty() || exact.get().compareTo(BigInteger.valueOf(JobsFileParser.MAX_RETRIES)) > 0) {
                assertTrue(retries.isEmpty(), "accepted out-of-range retries=" + value);
            }
        });
    }

    @Test
    void priorityIsReadExactlyWithinItsRange_orRejectedWithATypedError() {
        Gen<String> values = Gen.<String>weighted().add(2, hostileValues()).add(1, hostileValues().map(v -> "-" + v))
                .add(1, Gen.ints(-Scheduling.MAX_PRIORITY - 2, Scheduling.MAX_PRIORITY + 2).map(String::valueOf)).build();
        Property.forAll(values).tries(TRIES).check(value -> {
            boolean negative = value.startsWith("-");
            Optional<BigInteger> exact = UnitsOracle.integer(negative ? value.substring(1) : value).map(v -> negative ? v.negate() : v);
            Optional<JobSpec> parsed = tryParse("[priority=" + value + "] python x.py");
            if (exact.isPresent() && exact.get().abs().compareTo(BigInteger.valueOf(Scheduling.MAX_PRIORITY)) <= 0) {
                assertEquals(exact.get().intValueExact(),
                        parsed.orElseThrow(() -> new AssertionError("rejected priority=" + value)).scheduling().priority());
            } else {
                assertTrue(parsed.isEmpty(), "accepted priority=" + value + " as " + parsed.map(s -> s.scheduling().priority()));
            }
        });
    }

    @Test
    void gpuIdsAreReadAsAnIndependentExpansionGivesThem_orRejectedWithATypedError() {
        Gen<String> entry = Gen.<String>weighted()
                .add(4, Gen.ints(0, 12).map(String::valueOf))
                .add(2, Gen.ints(0, 12).with(Gen.ints(0, 12), (a, b) -> a + "-" + b))
                .add(1, Gen.elements("GPU-8f2c", "GPU-8F2C", "MIG-0-a", "GPU-", "gpu-1", "GPU-xyz", "MIG-GPU-1/2/3", "0-1023", "0-1024",
                        "1000-2023", "1-1023", "0-99999999", "2147483647", "2147483648", "007", "", "-1", "1-", "3--4", " ", "１"))
                .build();
        Property.forAll(Gen.listOf(entry, 1, 5).map(l -> String.join(",", l))).tries(TRIES).check(value -> {
            Optional<List<String>> expected = expandGpuIds(value);
            Optional<JobSpec> parsed = tryParse("[gpu-ids=" + value + "] python x.py");
            assertEquals(expected, parsed.map(s -> s.scheduling().gpuIds()), "gpu-ids=" + value);
        });
    }

    /** The oracle for gpu-ids: each entry a UUID, an index or an ascending range; no GPU twice; at most 1024. */
    private static Optional<List<String>> expandGpuIds(String value) {
        List<String> ids = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            if (entry.matches("(GPU|MIG)-[0-9A-Fa-f][0-9A-Fa-f-]*")) {
                ids.add(entry);
                continue;
            }
            String[] ends = entry.split("-", -1);
            if (ends.length > 2 || !Arrays.stream(ends).allMatch(e -> e.matches("[0-9]+"))) {
                return Optional.empty();
            }
            BigInteger low = new BigInteger(ends[0]);
            BigInteger high = new BigInteger(ends[ends.length - 1]);
            if (high.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0 || low.compareTo(high) > 0
                    || high.subtract(low).add(BigInteger.valueOf(ids.size())).compareTo(BigInteger.valueOf(JobsFileParser.MAX_GPUS)) >= 0) {
                return Optional.empty();
            }
            for (long i = low.longValueExact(); i <= high.longValueExact(); i++) {
                ids.add(Long.toString(i));
            }
        }
        boolean valid = ids.size() <= JobsFileParser.MAX_GPUS && ids.stream().distinct().count() == ids.size();
        return valid ? Optional.of(ids) : Optional.empty();
    }

    @Test
    void vramRoundTripsThroughUnits() {
        Property.forAll(JobSpecArbitraries.vramMib()).tries(TRIES).check(mib -> {
            assertEquals(OptionalLong.of(mib), Units.parseMib(Long.toString(mib)));
            assertEquals(OptionalLong.of(mib), Units.parseMib(mib + "MiB"));
            if (mib % 1024 == 0) {
                assertEquals(OptionalLong.of(mib), Units.parseMib(mib / 1024 + "G"));
            }
            // Any fraction of a GiB rounds up to the next whole MiB.
            assertEquals(UnitsOracle.mib(mib + ".5"), Units.parseMib(mib + ".5"));
        });
    }

    @Test
    void durationRoundTripsThroughUnits() {
        Property.forAll(JobSpecArbitraries.durations()).tries(TRIES).check(d -> {
            String text = Units.formatDuration(d);
            assertEquals(Optional.of(d), Units.parseDuration(text), "formatted as " + text);
            assertTrue(text.matches("[0-9]+(\\.[0-9]+)?s"), "plain decimal seconds: " + text);
        });
    }

    // ---- did you mean ----------------------------------------------------------------------------

    @Test
    void anySingleEditTypoOfAKnownKeyGetsThatKeySuggested() {
        Property.forAll(typosOfKeys()).tries(TRIES).check(pair -> {
            String key = pair.get(0);
            String typo = pair.get(1);
            assertEquals(typo.equalsIgnoreCase(key) ? 0 : 1, DidYouMean.distance(key, typo), typo);
            assertEquals(DidYouMean.distance(key, typo), DidYouMean.distance(typo, key), "symmetric");
            if (typo.equalsIgnoreCase(key)) {
                return; // the edit changed nothing (a letter for itself, a swap of equal letters)
            }
            String suggestion = "' — did you mean '" + key + "'?; ";
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[" + typo + "=1] python x.py"));
            assertTrue(e.getMessage().contains("'" + typo + "=1" + suggestion), e.getMessage());
            if (key.equals("cancel") || key.equals("preemptible")) {
                e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[" + typo + "] python x.py"));
                assertTrue(e.getMessage().contains("'" + typo + suggestion), "as a bare word: " + e.getMessage());
            }
        });
    }

    @Test
    void attributesWrittenWithCommasAreRefusedWithARewriteThatParsesToTheIntendedSpec() {
        // A quoted setup, conda path or comment holds spaces of its own, which this rewrite of the block would touch.
        Gen<JobSpec> specs = JobSpecArbitraries.jobSpecs().map(s -> s.environment().conda().filter(c -> !c.startsWith("/"))
                .map(c -> s.withEnvironment(RunEnvironment.conda(c))).orElse(s.withEnvironment(RunEnvironment.DEFAULT)))
                .map(s -> s.toBuilder().comment(java.util.Optional.empty()).build());
        Property.forAll(specs).tries(TRIES).check(spec -> {
            String line = spec.toLine();
            int close = line.indexOf("] ");
            String block = line.startsWith("[") ? line.substring(1, close) : "";
            if (!block.contains(" ")) {
                return; // fewer than two attributes: nothing to separate
            }
            String commas = "[" + block.replace(" ", ",") + line.substring(close);
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse(commas), commas);
            assertTrue(e.getMessage().startsWith("<job>:1: attributes are separated by spaces, not commas: write ["),
                    e.getMessage());
            String rewritten = e.expected().substring("write ".length()) + " " + spec.command();
            assertEquals(spec, JobSpec.parse(rewritten), rewritten);
        });
    }

    /** A known key and one typo of it: a letter inserted, dropped, replaced, or two neighbours swapped. */
    private static Gen<List<String>> typosOfKeys() {
        Gen<String> letter = Gen.elements("a", "c", "e", "i", "m", "n", "o", "p", "r", "s", "t", "u", "v", "x", "G", "R", "0", "-", "_");
        return Gen.elements("vram", "gpus", "timeout", "retries", "cancel", "priority", "gpu-ids", "preemptible", "on-timeout", "name",
                "after", "after-ok", "after-any", "conda", "setup").flatMap(key ->
                Gen.ints(0, 3).with(Gen.ints(0, key.length() - 1), (edit, at) -> new int[] {edit, at})
                        .with(letter, (ea, c) -> List.of(key, typo(key, ea[0], ea[1], c))));
    }

    private static String typo(String key, int edit, int at, String letter) {
        return switch (edit) {
            case 0 -> key.substring(0, at) + letter + key.substring(at);
            case 1 -> key.substring(0, at) + key.substring(at + 1);
            case 2 -> key.substring(0, at) + letter + key.substring(at + 1);
            default -> {
                int i = Math.min(at, key.length() - 2);
                yield key.substring(0, i) + key.charAt(i + 1) + key.charAt(i) + key.substring(i + 2);
            }
        };
    }

    // ---- toLine ----------------------------------------------------------------------------------

    @Test
    void toLineReparsesToTheSameSpec() {
        Property.forAll(JobSpecArbitraries.jobSpecs()).tries(TRIES).check(spec -> {
            String line = spec.toLine();
            JobSpec back;
            try {
                back = JobSpec.parse(line);
            } catch (JobSpecException e) {
                throw new AssertionError("toLine() gave an unparsable line: " + line, e);
            }
            assertEquals(spec, back, "via " + line);
        });
    }

    @Test
    void anySetupValueRoundTripsThroughToLineAndParse_besideAnyCommandAndCondaEnvironment() {
        Gen<List<Object>> cases = JobSpecArbitraries.setups()
                .with(JobSpecArbitraries.condaEnvs(), (setup, conda) -> List.<Object>of(setup, conda))
                .with(JobSpecArbitraries.commands(), (a, cmd) -> List.<Object>of(a.get(0), a.get(1), cmd));
        Property.forAll(cases).tries(TRIES).check(c -> {
            String setup = (String) c.get(0);
            String conda = (String) c.get(1);
            String command = (String) c.get(2);
            for (RunEnvironment env : List.of(RunEnvironment.setup(setup), RunEnvironment.conda(conda),
                    new RunEnvironment(Optional.of(conda), Optional.of(setup)))) {
                JobSpec spec = JobSpec.parse("[] " + command).withEnvironment(env);
                String line = spec.toLine();
                assertEquals(spec, JobSpec.parse(line), "via " + line);
                JobSpec inFile = JobsFileParser.parse("# a file\n" + line + "\n", "jobs.txt").get(0);
                assertEquals(2, inFile.line());
                assertEquals(spec.environment(), inFile.environment(), "in a file: " + line);
                assertEquals(spec.command(), inFile.command(), "in a file: " + line);
            }
        });
    }

    @Test
    void aQuotedValueThatIsNotClosedIsAOneLineErrorNamingTheLine_neverAJob() {
        Gen<String> open = JobSpecArbitraries.setups().filter(v -> v.indexOf('\'') < 0);
        Gen<String> command = JobSpecArbitraries.commands().filter(c -> c.indexOf('\'') < 0);
        Property.forAll(open.with(command, (v, cmd) -> "[setup='" + v + " " + cmd))
                .tries(TRIES).check(line -> {
                    JobSpecException e = assertThrows(JobSpecException.class,
                            () -> JobsFileParser.parse("ok\n" + line + "\n", "jobs.txt"));
                    assertEquals(2, e.line());
                    assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\r"), e.getMessage());
                    assertTrue(e.getMessage().startsWith("jobs.txt:2: unterminated quote in attribute block: "), e.getMessage());
                });
    }

    @Test
    void fileOfToLinesReparsesToTheSameSpecsWithLineNumbersAndOccurrences() {
        Gen<List<JobSpec>> specs = JobSpecArbitraries.jobFiles();
        Gen<String> filler = Gen.elements("", "   ", "# a comment", "  # indented comment", "\t");
        Property.forAll(specs.with(Gen.listOf(filler, 0, 15), List::of)).tries(TRIES).check(pair -> {
            @SuppressWarnings("unchecked") List<JobSpec> jobs = (List<JobSpec>) pair.get(0);
            @SuppressWarnings("unchecked") List<String> fillers = (List<String>) pair.get(1);
            List<String> lines = new ArrayList<>();
            List<JobSpec> expected = new ArrayList<>();
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < jobs.size(); i++) {
                if (i < fillers.size()) {
                    lines.add(fillers.get(i));
                }
                JobSpec j = jobs.get(i);
                lines.add(j.toLine());
                int occurrence = seen.merge(j.command(), 1, Integer::sum) - 1;
                expected.add(j.toBuilder().line(lines.size()).key(sha1Prefix(j.command()) + "#" + occurrence).build());
            }
            String lf = String.join("\n", lines);
            assertEquals(expected, JobsFileParser.parse(lf, "jobs.txt"), "LF file:\n" + lf);
            assertEquals(expected, JobsFileParser.parse(String.join("\r\n", lines) + "\r\n", "jobs.txt"), "CRLF file");
            assertEquals(expected, JobsFileParser.parse("\uFEFF" + lf, "jobs.txt"), "file with a BOM");
        });
    }

    @Test
    void theSpecGeneratorsCoverEverySchedulingAttribute_andFilesWaitForLaterAndCancelledLines() {
        SplittableRandom random = new SplittableRandom(7);
        Map<String, Integer> seen = new java.util.TreeMap<>();
        for (int i = 0; i < 3000; i++) {
            Scheduling s = JobSpecArbitraries.jobSpecs().next(random, 1 + i % Gen.MAX_SIZE).scheduling();
            count(seen, "negative priority", s.priority() < 0);
            count(seen, "positive priority", s.priority() > 0);
            count(seen, "pinned by index", s.gpuIds().stream().anyMatch(id -> Character.isDigit(id.charAt(0))));
            count(seen, "pinned by uuid", s.gpuIds().stream().anyMatch(id -> id.startsWith("GPU-") || id.startsWith("MIG-")));
            count(seen, "pinned to 100+", s.gpuIds().size() >= 100);
            count(seen, "preemptible", s.preemptible());
            count(seen, "requeue", s.onTimeout() == Scheduling.OnTimeout.REQUEUE);
            count(seen, "name", s.name().isPresent());
            count(seen, "after ok", s.after().stream().anyMatch(Scheduling.Dependency::needsSuccess));
            count(seen, "after any", s.after().stream().anyMatch(d -> !d.needsSuccess()));
        }
        for (int i = 0; i < 1000; i++) {
            List<JobSpec> file = JobSpecArbitraries.jobFiles().next(random, 1 + i % Gen.MAX_SIZE);
            Map<String, Integer> lineOf = new HashMap<>();
            for (int j = 0; j < file.size(); j++) {
                int line = j;
                file.get(j).scheduling().name().ifPresent(n -> lineOf.put(n, line));
            }
            boolean forward = false;
            boolean onCancelled = false;
            for (int j = 0; j < file.size(); j++) {
                for (Scheduling.Dependency d : file.get(j).scheduling().after()) {
                    forward |= lineOf.get(d.name()) > j;
                    onCancelled |= file.get(lineOf.get(d.name())).cancel();
                }
            }
            count(seen, "file waits for a later line", forward);
            count(seen, "file waits for a cancelled line", onCancelled);
        }
        // The seed is fixed; the rarest (pins of 100 GPUs or more) comes up about 30 times.
        assertTrue(seen.size() == 12 && seen.values().stream().allMatch(n -> n >= 15), seen.toString());
    }

    private static void count(Map<String, Integer> seen, String what, boolean happened) {
        if (happened) {
            seen.merge(what, 1, Integer::sum);
        }
    }

    // ---- identity keys ---------------------------------------------------------------------------

    @Test
    void duplicateCommandsAreNumbered0_1_2InFileOrderWhateverTheirBlocks() {
        Gen<List<JobSpec>> sameCommand = JobSpecArbitraries.commands().flatMap(cmd ->
                JobSpecArbitraries.jobFiles().map(file -> file.stream().map(s -> withCommand(s, cmd)).toList()));
        Property.forAll(sameCommand).tries(TRIES).check(specs -> {
            String text = String.join("\n", specs.stream().map(JobSpec::toLine).toList());
            List<JobSpec> parsed = JobsFileParser.parse(text, "jobs.txt");
            assertEquals(specs.size(), parsed.size());
            String hash = sha1Prefix(specs.get(0).command());
            for (int i = 0; i < parsed.size(); i++) {
                assertEquals(hash + "#" + i, parsed.get(i).key());
            }
        });
    }

    @Test
    void addingCancelOrChangingVramOrOtherAttributesKeepsTheKey_changingTheCommandDoesNot() {
        Gen<JobSpec[]> variants = JobSpecArbitraries.jobSpecs().flatMap(spec -> JobSpecArbitraries.jobSpecs().map(other ->
                new JobSpec[] {spec, withCommand(other, spec.command()), other}));
        Property.forAll(variants.map(List::of)).tries(TRIES).check(v -> {
            JobSpec spec = v.get(0);
            JobSpec sameCommandOtherAttributes = v.get(1);
            JobSpec cancelled = JobSpec.builder(spec.command()).vramMib(spec.vramMib()).gpus(spec.gpus()).timeout(spec.timeout())
                    .retries(spec.retries()).cancel(true).key(spec.key()).build();
            assertEquals(spec.key(), JobSpec.parse(spec.toLine()).key());
            assertEquals(spec.key(), JobSpec.parse(cancelled.toLine()).key(), "with cancel");
            assertEquals(spec.key(), JobSpec.parse(sameCommandOtherAttributes.toLine()).key(),
                    "other vram, gpus, timeout, retries, priority, pins, name, dependencies, conda, setup, tty");
            assertEquals(spec.key(), JobSpec.parse("[ ]   " + spec.command()).key(), "empty block, extra spaces");
            JobSpec other = v.get(2);
            if (!other.command().equals(spec.command())) {
                assertNotEquals(spec.key(), JobSpec.parse(other.toLine()).key(), "another command");
            }
        });
    }

    @Test
    void keyIsTheFirst12HexDigitsOfSha1OfTheUtf8CommandAndItsOccurrence() {
        Property.forAll(JobSpecArbitraries.commands()).tries(TRIES).check(cmd ->
                assertEquals(sha1Prefix(cmd) + "#0", JobSpec.parse("[] " + cmd).key()));
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /** Values for {@code key=value}: the near-valid numbers of the arbitraries plus random digit/dot/suffix mixes. */
    private static Gen<String> hostileValues() {
        Gen<String> digits = Gen.strings(Gen.elements("0", "1", "2", "5", "9", "."), 1, 40);
        Gen<String> suffix = Gen.elements("", "", "G", "g", "GiB", "GB", "M", "mb", "MiB", "s", "m", "h", "d", "D", "ms", "T", "e309", "k");
        Gen<String> fixed = Gen.elements("99999999999999999999G", "99999999999", "9999999999", "1e309", "0.0000001s",
                "0.0000000001s", "2147483647", "2147483648", "2097151.999G", "2097152G", "3650d", "3650.0000000001d", "87600h",
                "315360000", "315360001", "0", "0.0", ".5", "5.", ".", "-1", "+1", "１２", "٣", "1_000", "0x10", "NaN", "", "1024",
                "1025", "00000000001", "0000000001", "1000", "1001");
        return Gen.<String>weighted().add(1, fixed).add(2, digits.with(suffix, (d, s) -> d + s)).build();
    }

    private static Optional<JobSpec> tryParse(String line) {
        try {
            return Optional.of(JobSpec.parse(line));
        } catch (JobSpecException e) {
            return Optional.empty();
        }
    }

    private static void parsesOrTypedError(Runnable parse) {
        try {
            parse.run();
        } catch (JobSpecException expected) {
            assertFalse(expected.getMessage().isBlank());
        } catch (RuntimeException | StackOverflowError e) {
            fail("not a JobSpecException: " + e, e);
        }
    }

    private static int offsetOfLine(String text, int line) {
        int offset = 0;
        for (int i = 1; i < line; i++) {
            int nl = text.indexOf('\n', offset);
            if (nl < 0) {
                return text.length();
            }
            offset = nl + 1;
        }
        return offset;
    }

    private static JobSpec withCommand(JobSpec s, String command) {
        return s.toBuilder().command(command).line(1).key(sha1Prefix(command) + "#0").build();
    }

    static String sha1Prefix(String command) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(command.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void blankTextAndCommentsOnlyGiveNoJobs_butABlankSingleLineIsAnError() {
        Gen<String> empty = Gen.strings(Gen.elements("", " ", "\t", "\n", "\r\n", "# x", "#[vram=1] y"), 0, 10)
                .map(s -> s.replace("# x", "\n# x\n").replace("#[vram=1] y", "\n#[vram=1] y\n"));
        Property.forAll(empty).tries(TRIES).check(text -> {
            assertEquals(List.of(), JobsFileParser.parse(text, "jobs.txt"), "file: " + text);
            if (!text.contains("\n")) {
                assertThrows(JobSpecException.class, () -> JobSpec.parse(text));
            }
        });
    }
}
