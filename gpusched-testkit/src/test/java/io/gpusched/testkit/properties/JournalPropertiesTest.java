package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.jobs.Units;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalCodec;
import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import io.gpusched.testkit.properties.JournalLines.Field;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's read side against hostile lines and bytes, each property over 1,000 generated
 * inputs: the codec reads every event it could have written (and the original's formatting) exactly,
 * refuses any line with one field wrong, and never throws anything but IllegalArgumentException;
 * loading a journal keeps every good event and counts every bad line into one warning per kind.
 */
class JournalPropertiesTest {
    private static final int TRIES = 1000;

    @TempDir
    Path dir;

    private final JournalCodec codec = new JournalCodec();

    // ---- the codec ------------------------------------------------------------------------------

    @Test
    void everyEventReadsBackExactly_asWrittenByTheCodecOrInThePythonOriginalsFormat() {
        Property.forAll(written()).tries(TRIES).check(w -> {
            assertEquals(Optional.of(w.event()), codec.decode(codec.encode(w.event())), "codec's own line");
            assertEquals(Optional.of(w.event()), codec.decode(w.line()), w.line());
        });
    }

    @Test
    void everyLineReadsBackWithItsTime_orWithoutOne_whereverTheTimeIsInTheLine() {
        Gen<OptionalLong> times = Gen.<OptionalLong>weighted()
                .add(1, Gen.constant(OptionalLong.empty()))
                .add(3, Gen.longs(0, Long.MAX_VALUE).map(OptionalLong::of))
                .build();
        Property.forAll(written().with(times, Map::entry)).tries(TRIES).check(c -> {
            JournalEntry entry = new JournalEntry(c.getKey().event(), c.getValue());
            assertEquals(Optional.of(entry), codec.decodeEntry(codec.encode(entry)), "codec's own line");
            // Independently written: the time as one more field, anywhere in the line.
            String line = c.getKey().line().strip();
            if (c.getValue().isPresent()) {
                int at = line.indexOf('{') + 1;
                line = line.substring(0, at) + "\"at_ms\": " + c.getValue().getAsLong() + ", " + line.substring(at);
            }
            assertEquals(Optional.of(entry), codec.decodeEntry(line), line);
            assertEquals(Optional.of(entry.event()), codec.decode(line), line);
        });
    }

    @Test
    void aLineWithAWrongTimeOrRunDeclarationIsRefused_notReadWithoutIt() {
        Gen<String> broken = (r, size) -> {
            JournalEvent e = JournalLines.events().next(r, size);
            List<Field> fields = new ArrayList<>(JournalLines.fields(e, r.nextBoolean()));
            boolean vram = e instanceof JournalEvent.Started && r.nextBoolean();
            String name = vram ? "vram" : "at_ms";
            fields.removeIf(f -> f.name().equals(name));
            List<String> wrong = JournalLines.wrongValues(name);
            fields.add(r.nextInt(fields.size() + 1), new Field(name, wrong.get(r.nextInt(wrong.size()))));
            return JournalLines.render(fields, r.nextBoolean());
        };
        Property.forAll(broken).tries(TRIES).check(line -> {
            assertThrows(IllegalArgumentException.class, () -> codec.decodeEntry(line), line);
            assertThrows(IllegalArgumentException.class, () -> codec.decode(line), line);
        });
    }

    @Test
    void aLineWithOneFieldWrongMissingOrRepeatedIsRefused_whicheverField() {
        Gen<String> broken = (r, size) -> {
            JournalEvent e = JournalLines.events().next(r, size);
            List<Field> fields = new ArrayList<>(JournalLines.fields(e, r.nextBoolean()));
            List<String> names = new ArrayList<>(List.of("key", "event"));
            names.addAll(JournalLines.required(e));
            String name = names.get(r.nextInt(names.size()));
            int at = indexOf(fields, name);
            switch (r.nextInt(4)) {
                case 0 -> fields.remove(at);
                case 1 -> fields.add(r.nextInt(fields.size() + 1), fields.get(at));
                default -> {
                    List<String> wrong = JournalLines.wrongValues(name);
                    fields.set(at, new Field(name, wrong.get(r.nextInt(wrong.size()))));
                }
            }
            Collections.shuffle(fields, new Random(r.nextLong()));
            return JournalLines.render(fields, r.nextBoolean());
        };
        Property.forAll(broken).tries(TRIES).check(line -> assertThrows(IllegalArgumentException.class, () -> codec.decode(line), line));
    }

    @Test
    void wholeNumbersAreReadExactlyInRange_elseTheLineIsRefused_neverRoundedTruncatedOrWrapped() {
        Property.forAll(Gen.elements(Slot.values()).with(integerLiterals(), Map::entry)).tries(TRIES).check(c -> {
            Slot slot = c.getKey();
            String literal = c.getValue();
            Optional<BigInteger> oracle = wholeNumber(literal).filter(v -> v.compareTo(BigInteger.valueOf(slot.min)) >= 0
                    && v.compareTo(BigInteger.valueOf(slot.max)) <= 0);
            String line = slot.line(literal);
            if (oracle.isPresent()) {
                JournalEntry e = codec.decodeEntry(line).orElseThrow();
                assertEquals(Optional.of(oracle.get().longValueExact()), slot.read(e), line);
            } else if (slot.nullable && literal.equals("null")) {
                assertEquals(Optional.empty(), slot.read(codec.decodeEntry(line).orElseThrow()), line);
            } else {
                assertThrows(IllegalArgumentException.class, () -> codec.decode(line), line);
            }
        });
    }

    @Test
    void gpuIndexKeysOfPeaksAreCanonicalDecimalsInIntRange_elseTheLineIsRefused() {
        Gen<String> keyText = Gen.<String>weighted()
                .add(3, Gen.strings(Gen.elements("0", "1", "2", "4", "7", "9"), 1, 12))
                .add(1, Gen.elements("", " 1", "1 ", "+1", "-1", "-0", "1.0", "1e2", "0x1", "\u0661", "１", "2147483647", "2147483648",
                        "00", "007", "4294967296"))
                .build();
        Property.forAll(keyText).tries(TRIES).check(k -> {
            String line = "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {"
                    + JournalLines.string(k, true) + ": 5}, \"avg_util\": null}";
            boolean canonical = k.matches("0|[1-9][0-9]*") && new BigInteger(k).compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) <= 0;
            if (canonical) {
                JournalEvent.Done d = (JournalEvent.Done) codec.decode(line).orElseThrow();
                assertEquals(Map.of(Integer.parseInt(k), 5L), d.peakMib(), line);
            } else {
                assertThrows(IllegalArgumentException.class, () -> codec.decode(line), line);
            }
        });
    }

    @Test
    void anyJsonLikeTextDecodesOrIsRefusedWithIllegalArgumentException_nothingElse() {
        Gen<String> piece = Gen.<String>weighted()
                .add(6, Gen.elements("{", "}", "[", "]", ",", ":", " ", "\"", "\"key\"", "\"event\"", "\"seen\"", "\"started\"",
                        "\"oom\"", "\"done\"", "\"interrupted\"", "\"no\"", "\"pgid\"", "\"gpus\"", "\"attempts\"", "\"next_vram\"",
                        "\"status\"", "\"ok\"", "\"returncode\"", "\"peak_mib\"", "\"avg_util\"", "\"command\"", "\"k#0\""))
                .add(3, Gen.elements("0", "1", "-1", "1e30", "1e400", "-1e400", "1.5", "2147483648", "9223372036854775808",
                        "99999999999999999999999999999999999999999999", "NaN", "Infinity", "-", "0x1", "01", ".5", "1."))
                .add(2, Gen.elements("true", "false", "null", "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00\\ud800\"", "\"\\u\"", "\"\\x\"",
                        "\"\\", "/*", "//", "'", "\u0000", "\r", "\t", "\u2028", "\ufeff", "\ud800", "é", "🚀"))
                .add(1, Gen.ints(0, 0xFFFF).map(c -> String.valueOf((char) c.intValue())))
                .add(1, Gen.ints(1, 40).map("["::repeat))
                .build();
        Gen<String> text = Gen.<String>weighted()
                .add(3, Gen.strings(piece, 0, 60))
                .add(1, written().map(w -> w.line()).flatMap(l -> Gen.ints(0, l.length()).map(cut -> l.substring(0, cut))))
                .build();
        Property.forAll(text).tries(TRIES).check(line -> {
            try {
                codec.decode(line);
            } catch (IllegalArgumentException expected) {
                // the documented refusal
            } catch (RuntimeException | StackOverflowError e) {
                fail("not an IllegalArgumentException: " + e, e);
            }
        });
    }

    // ---- loading a journal ----------------------------------------------------------------------

    @Test
    void loadingKeepsEveryGoodEventAndCountsEveryBadLine_whateverIsMixedIn() {
        Property.forAll(Gen.listOf(entries(), 0, 25)).tries(TRIES).check(entries -> {
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            JournalState expected = new JournalState();
            long lineNo = 0;
            long bad = 0;
            long firstBad = 0;
            long tooLong = 0;
            long firstTooLong = 0;
            long unknown = 0;
            long ends = 0;
            long firstEnd = 0;
            for (Entry e : entries) {
                lineNo++;
                file.writeBytes(e.bytes());
                file.write('\n');
                switch (e.kind()) {
                    case GOOD -> expected.apply(e.event());
                    case BAD -> {
                        // A bad job-end line that still names its job ends it (JournalHostileInputTest has the rules).
                        Optional<io.gpusched.journal.JournalEntry> end = codec.salvageEnd(
                                new String(e.bytes(), java.nio.charset.StandardCharsets.UTF_8).strip());
                        if (end.isPresent()) {
                            expected.apply(end.get().event());
                            ends++;
                            firstEnd = firstEnd == 0 ? lineNo : firstEnd;
                        } else {
                            bad++;
                            firstBad = firstBad == 0 ? lineNo : firstBad;
                        }
                    }
                    case TOO_LONG -> {
                        tooLong++;
                        firstTooLong = firstTooLong == 0 ? lineNo : firstTooLong;
                    }
                    case UNKNOWN -> unknown++;
                    case BLANK -> {
                    }
                }
            }
            Path f = write(file.toByteArray());
            List<String> warnings = new ArrayList<>();
            if (bad > 0) {
                warnings.add("journal " + f + ": skipped " + bad + " unreadable line" + (bad == 1 ? "" : "s") + " (first at line "
                        + firstBad + "), kept every other event");
            }
            if (ends > 0) {
                warnings.add("journal " + f + ": " + ends + " job-end line" + (ends == 1 ? "" : "s") + " with a bad field"
                        + " (first at line " + firstEnd + "): kept as ended, not run again (exit code -1 where its own was"
                        + " unreadable; status failed where its was, which --retry-failed runs again)");
            }
            if (tooLong > 0) {
                warnings.add("journal " + f + ": skipped " + tooLong + " line" + (tooLong == 1 ? "" : "s")
                        + " longer than 1048576 bytes (first at line " + firstTooLong + "), kept every other event");
            }
            if (unknown > 0) {
                warnings.add("journal " + f + ": ignored " + unknown + " event" + (unknown == 1 ? "" : "s")
                        + " of a type this version does not know (written by a newer gpusched?)");
            }
            try (Journal j = Journal.open(f, false)) {
                assertEquals(expected.records(), j.state().records());
                assertEquals(expected.nextNo(), j.state().nextNo());
                assertEquals(warnings, j.loadWarnings());
            }
        });
    }

    @Test
    void anyCutOfAJournalLoadsEveryCompleteEvent_withAtMostOneWarning_andTheNextAppendIsReadBack() {
        Gen<List<JournalEvent>> journals = Gen.listOf(JournalLines.events(), 1, 12);
        Property.forAll(journals.flatMap(events -> Gen.ints(0, Integer.MAX_VALUE).map(cut -> Map.entry(events, cut)))).tries(TRIES)
                .check(c -> {
                    List<JournalEvent> events = c.getKey();
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    List<Integer> ends = new ArrayList<>();
                    for (JournalEvent e : events) {
                        out.writeBytes(codec.encode(e).getBytes(StandardCharsets.UTF_8));
                        ends.add(out.size());
                        out.write('\n');
                    }
                    byte[] all = out.toByteArray();
                    int cut = c.getValue() % (all.length + 1);
                    JournalState expected = new JournalState();
                    int complete = 0;
                    while (complete < events.size() && ends.get(complete) <= cut) {
                        expected.apply(events.get(complete++));
                    }
                    Path f = write(Arrays.copyOf(all, cut));
                    try (Journal j = Journal.open(f, false)) {
                        assertEquals(expected.records(), j.state().records(), "cut at " + cut + " of " + all.length);
                        assertTrue(j.loadWarnings().size() <= 1, j.loadWarnings().toString());
                        j.append(new JournalEvent.Seen("appended#0", 7, "after the cut"));
                    }
                    try (Journal j = Journal.open(f, false)) {
                        assertEquals("after the cut", j.state().record("appended#0").command(), "cut at " + cut);
                    }
                });
    }

    @Test
    void anyBytesLoadWithoutThrowing_withAtMostOneOneLineWarningPerKind() {
        Gen<byte[]> bytes = Gen.listOf(Gen.<byte[]>weighted()
                .add(4, Gen.ints(0, 255).map(b -> new byte[] {(byte) b.intValue()}))
                .add(2, Gen.elements("\n", "\r\n", "{", "}", "\"", "\"key\": \"k#0\", ", "\"event\": \"seen\", ", "\"no\": 1",
                        "\"command\": \"x\"", "[", "]", "1e400", "\u0000").map(s -> s.getBytes(StandardCharsets.UTF_8)))
                .add(1, written().map(w -> (w.line() + "\n").getBytes(StandardCharsets.UTF_8)))
                .build(), 0, 80).map(parts -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    parts.forEach(out::writeBytes);
                    return out.toByteArray();
                });
        Property.forAll(bytes).tries(TRIES).check(b -> {
            try (Journal j = Journal.open(write(b), false)) {
                assertTrue(j.loadWarnings().size() <= 3, j.loadWarnings().toString());
                for (String w : j.loadWarnings()) {
                    assertFalse(w.contains("\n") || w.contains("\r"), w);
                }
                j.state().records().values().forEach(r -> {
                    r.no().ifPresent(no -> assertTrue(no >= 1 && no <= JournalLines.MAX_NO, "no " + no));
                    r.runningPgid().ifPresent(p -> assertTrue(p >= 2 && p <= Integer.MAX_VALUE, "pgid " + p));
                    r.nextVramMib().ifPresent(v -> assertTrue(v >= 1 && v <= Units.MAX_MIB, "next vram " + v));
                    assertTrue(r.attempts() >= 0, "attempts " + r.attempts());
                });
            }
        });
    }

    // ---- generators and oracles -----------------------------------------------------------------

    /** An event and a line for it in any of the formats that must read back: field order, spacing, escapes, extra fields. */
    record Written(JournalEvent event, String line) {
    }

    static Gen<Written> written() {
        return (r, size) -> {
            JournalEvent e = JournalLines.events().next(r, size);
            List<Field> fields = new ArrayList<>(JournalLines.fields(e, r.nextBoolean()));
            if (r.nextInt(4) == 0) {
                // A newer version's field: ignored, whatever it holds, up to the nesting limit.
                fields.add(new Field("x_" + r.nextInt(100), Gen.elements("null", "1e400", "-0", "\"\\ud800\"", "[1, [2, [3]]]",
                        "{\"a\": {\"b\": [true, false, null]}}", "99999999999999999999").next(r, size)));
            }
            if (r.nextBoolean()) {
                Collections.shuffle(fields, new Random(r.nextLong()));
            }
            String line = JournalLines.render(fields, r.nextBoolean());
            return new Written(e, r.nextInt(8) == 0 ? " \t" + line + "\r" : line);
        };
    }

    enum Kind { GOOD, BAD, TOO_LONG, UNKNOWN, BLANK }

    /** One journal line, what it is, and for a good one the event it holds. */
    record Entry(Kind kind, byte[] bytes, JournalEvent event) {
        @Override
        public String toString() {
            String text = new String(bytes, StandardCharsets.UTF_8);
            return kind + " " + (text.length() > 120 ? text.substring(0, 120) + "...(" + bytes.length + " bytes)" : text);
        }
    }

    static Gen<Entry> entries() {
        Gen<Entry> good = written().map(w -> new Entry(Kind.GOOD, w.line().getBytes(StandardCharsets.UTF_8), w.event()));
        Gen<Entry> torn = written().flatMap(w -> Gen.ints(1, w.line().strip().length() - 1).map(cut ->
                new Entry(Kind.BAD, Arrays.copyOf(w.line().strip().getBytes(StandardCharsets.UTF_8), cut), null)));
        Gen<Entry> oneFieldWrong = (r, size) -> {
            JournalEvent e = JournalLines.events().next(r, size);
            List<Field> fields = new ArrayList<>(JournalLines.fields(e, true));
            List<String> names = new ArrayList<>(List.of("key", "event"));
            names.addAll(JournalLines.required(e));
            String name = names.get(r.nextInt(names.size()));
            List<String> wrong = JournalLines.wrongValues(name);
            fields.set(indexOf(fields, name), new Field(name, wrong.get(r.nextInt(wrong.size()))));
            return new Entry(Kind.BAD, JournalLines.render(fields, true).getBytes(StandardCharsets.UTF_8), null);
        };
        Gen<Entry> notUtf8 = (r, size) -> {
            byte[][] bad = {{(byte) 0xC3, '('}, {(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82}};
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes("{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1, \"command\": \"".getBytes(StandardCharsets.UTF_8));
            out.writeBytes(bad[r.nextInt(bad.length)]);
            out.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
            return new Entry(Kind.BAD, out.toByteArray(), null);
        };
        Gen<Entry> garbage = Gen.listOf(Gen.ints(0, 255).filter(b -> b != '\n'), 0, 40).map(list -> {
            byte[] b = new byte[list.size() + 1];
            b[0] = '#'; // not blank, and never the start of a JSON object
            for (int i = 0; i < list.size(); i++) {
                b[i + 1] = (byte) list.get(i).intValue();
            }
            return new Entry(Kind.BAD, b, null);
        });
        Gen<Entry> tooDeep = Gen.ints(9, 5000).map(depth -> new Entry(Kind.BAD,
                ("{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": " + "[".repeat(depth) + "]".repeat(depth) + "}")
                        .getBytes(StandardCharsets.UTF_8), null));
        Gen<Entry> unknown = written().map(w -> new Entry(Kind.UNKNOWN, w.line()
                .replaceFirst("\"event\": ?\"[a-z_]+\"", "\"event\": \"paused_in_a_future_version\"").getBytes(StandardCharsets.UTF_8), null));
        Gen<Entry> blank = Gen.elements("", " ", "\t", "\r", " \r").map(s -> new Entry(Kind.BLANK, s.getBytes(StandardCharsets.UTF_8), null));
        // Valid JSON and a valid event, but over the line cap: skipped as too long, never decoded.
        Gen<Entry> huge = Gen.ints(0, 3).map(extra -> new Entry(Kind.TOO_LONG,
                ("{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1, \"command\": \"" + "x".repeat((1 << 20) + extra) + "\"}")
                        .getBytes(StandardCharsets.UTF_8), null));
        return Gen.<Entry>weighted()
                .add(12, good)
                .add(2, torn)
                .add(3, oneFieldWrong)
                .add(1, notUtf8)
                .add(1, garbage)
                .add(1, tooDeep)
                .add(2, unknown)
                .add(2, blank)
                .add(1, (r, size) -> r.nextInt(20) == 0 ? huge.next(r, size) : good.next(r, size))
                .build();
    }

    /** Where a whole number goes in an otherwise valid line, its range, and how to read it back. */
    enum Slot {
        NO("seen", 1, JournalLines.MAX_NO, false),
        PGID("started", 2, Integer.MAX_VALUE, false),
        GPU("started", 0, Integer.MAX_VALUE, false),
        ATTEMPTS("oom", 1, JournalLines.MAX_ATTEMPTS, false),
        NEXT_VRAM("oom", 1, Units.MAX_MIB, true),
        RETURNCODE("done", Integer.MIN_VALUE, Integer.MAX_VALUE, false),
        PEAK("done", 0, Long.MAX_VALUE, false),
        STARTED_VRAM("started", 1, Units.MAX_MIB, true),
        AT("interrupted", 0, Long.MAX_VALUE, false);

        final String event;
        final long min;
        final long max;
        final boolean nullable;

        Slot(String event, long min, long max, boolean nullable) {
            this.event = event;
            this.min = min;
            this.max = max;
            this.nullable = nullable;
        }

        String line(String literal) {
            String body = switch (this) {
                case NO -> "\"no\": " + literal + ", \"command\": \"c\"";
                case PGID -> "\"pgid\": " + literal + ", \"gpus\": [0]";
                case GPU -> "\"pgid\": 4242, \"gpus\": [" + literal + "]";
                case ATTEMPTS -> "\"attempts\": " + literal + ", \"next_vram\": 9750";
                case NEXT_VRAM -> "\"attempts\": 1, \"next_vram\": " + literal;
                case RETURNCODE -> "\"status\": \"ok\", \"returncode\": " + literal + ", \"peak_mib\": {}, \"avg_util\": null";
                case PEAK -> "\"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"3\": " + literal + "}, \"avg_util\": null";
                case STARTED_VRAM -> "\"pgid\": 4242, \"gpus\": [0], \"vram\": " + literal;
                case AT -> "\"at_ms\": " + literal;
            };
            return "{\"key\": \"k#0\", \"event\": \"" + event + "\", " + body + "}";
        }

        Optional<Long> read(JournalEntry entry) {
            if (this == AT) {
                return entry.atMillis().isPresent() ? Optional.of(entry.atMillis().getAsLong()) : Optional.empty();
            }
            return read(entry.event());
        }

        Optional<Long> read(JournalEvent e) {
            return switch (this) {
                case NO -> Optional.of((long) ((JournalEvent.Seen) e).no());
                case PGID -> Optional.of(((JournalEvent.Started) e).pgid());
                case GPU -> Optional.of((long) ((JournalEvent.Started) e).gpus().get(0));
                case ATTEMPTS -> Optional.of((long) ((JournalEvent.Oom) e).attempts());
                case NEXT_VRAM -> {
                    OptionalLong v = ((JournalEvent.Oom) e).nextVramMib();
                    yield v.isPresent() ? Optional.of(v.getAsLong()) : Optional.empty();
                }
                case RETURNCODE -> Optional.of((long) ((JournalEvent.Done) e).returncode());
                case PEAK -> Optional.ofNullable(((JournalEvent.Done) e).peakMib().get(3));
                case STARTED_VRAM -> {
                    OptionalLong v = ((JournalEvent.Started) e).vramMib();
                    yield v.isPresent() ? Optional.of(v.getAsLong()) : Optional.empty();
                }
                case AT -> Optional.empty(); // a field of the line, not of the event: see read(JournalEntry)
            };
        }
    }

    /** JSON number literals around every bound that matters, and what is not a whole number at all. */
    static Gen<String> integerLiterals() {
        List<String> edges = new ArrayList<>();
        for (BigInteger b : List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.TWO, BigInteger.valueOf(1_000_000),
                BigInteger.valueOf(1_000_000_000), BigInteger.valueOf(Integer.MAX_VALUE), BigInteger.ONE.shiftLeft(31),
                BigInteger.ONE.shiftLeft(32), BigInteger.valueOf(Long.MAX_VALUE), BigInteger.ONE.shiftLeft(63), BigInteger.ONE.shiftLeft(64))) {
            for (int d = -1; d <= 1; d++) {
                edges.add(b.add(BigInteger.valueOf(d)).toString());
                edges.add(b.add(BigInteger.valueOf(d)).negate().toString());
            }
        }
        Gen<String> digits = Gen.strings(Gen.ints('0', '9').map(c -> String.valueOf((char) c.intValue())), 1, 45)
                .map(s -> s.replaceFirst("^0+(?=.)", ""));
        return Gen.<String>weighted()
                .add(3, Gen.elements(edges))
                .add(2, digits)
                .add(1, digits.map(s -> "-" + s))
                .add(2, Gen.elements("1.0", "0.0", "-0", "-0.0", "1e3", "1E3", "1e+3", "1e-3", "1e30", "1e400", "2.5", "4242.0",
                        "9750.5", "1.0e1", "01", "00", "+1", ".5", "1.", "0x10", "NaN", "Infinity", "-Infinity", "null", "true",
                        "\"1\"", "\"\"", "[]", "[1]", "{}", "1 2", "1,", "--1", "\u0661"))
                .add(1, Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE).map(String::valueOf))
                .build();
    }

    private static final Pattern JSON_INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");

    /** The exact value of a JSON integer literal, however large; empty for anything else. */
    static Optional<BigInteger> wholeNumber(String literal) {
        return JSON_INTEGER.matcher(literal).matches() ? Optional.of(new BigInteger(literal)) : Optional.empty();
    }

    private static int indexOf(List<Field> fields, String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no field " + name + " in " + fields);
    }

    private Path write(byte[] bytes) {
        try {
            return Files.write(dir.resolve("journal.jsonl"), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
