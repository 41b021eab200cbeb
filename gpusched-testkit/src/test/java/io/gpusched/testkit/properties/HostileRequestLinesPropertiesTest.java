package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.UnreadableRequest;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The daemon's request decoder ({@link ProtocolCodec#decodeRequest}) fed hostile lines, as every byte a
 * user sends the daemon is hostile: PROTOCOL.md's request examples mutated byte by byte, and objects built
 * from pieces (every field of every op with values of every type, missing and repeated keys, unknown ops
 * and fields, nesting past the limit, numbers huge, negative, as strings, {@code NaN}, {@code 1e999},
 * escaped NULs, controls and lone surrogates, long strings, bytes that are not UTF-8, lines cut short).
 * Each line is read as the service reads it: its bytes up to a newline as UTF-8, malformed bytes as
 * U+FFFD ({@code Connection.takeLine}).
 *
 * <p>For every line: a typed request, which encodes to one line that reads back as the same request and
 * holds its numbers in their documented ranges; or an {@link UnreadableRequest} whose message is one line
 * of at most {@value #MAX_MESSAGE_CHARS} characters, however long the line; never any other throwable
 * ({@code ServiceServer.answer} answers only that one). A number field takes exactly the integer literals
 * from 0 to 2^31 - 1 and refuses every other number by the field's name, as PROTOCOL.md's errors say.
 */
class HostileRequestLinesPropertiesTest {
    private static final int TRIES = 1000;
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    /** A refusal's message is a sentence and a short quote, never the line it refuses. */
    private static final int MAX_MESSAGE_CHARS = 500;
    private static final Path PROTOCOL_MD = Path.of("..", "PROTOCOL.md");

    /** One line as sent: its bytes (without the newline), and how it was made, for a failure's report. */
    record Sent(byte[] bytes, String how) {
        @Override
        public String toString() {
            String text = new String(bytes, 0, Math.min(bytes.length, 300), StandardCharsets.UTF_8);
            return how + ", " + bytes.length + " bytes: " + visible(text) + (bytes.length > 300 ? "..." : "");
        }
    }

    @Test
    void everyHostileLineDecodesToATypedRequestThatReadsBack_orIsRefusedInOneBoundedLine() {
        Property.forAll(hostileLines()).tries(TRIES).check(HostileRequestLinesPropertiesTest::checkEveryLineOf);
    }

    @Test
    void aNumberFieldTakesExactlyTheIntegerLiteralsFrom0To2147483647_andRefusesEveryOtherNumberByName() {
        Gen<String> field = Gen.elements("job:no", "cancel:no", "logs:no", "pause:gpu", "resume:gpu", "submit:umask");
        Property.forAll(field.with(numberLiterals(), (f, n) -> f + " " + n)).tries(TRIES).check(c -> {
            String[] opField = c.substring(0, c.indexOf(' ')).split(":");
            String literal = c.substring(c.indexOf(' ') + 1);
            String line = "{\"v\":1,\"op\":\"" + opField[0] + "\","
                    + (opField[0].equals("submit") ? "\"line\":\"x\",\"cwd\":\"/\"," : "")
                    + "\"" + opField[1] + "\":" + literal + "}";
            boolean integer = !literal.contains(".") && !literal.contains("e") && !literal.contains("E");
            boolean whole = integer && new BigInteger(literal).signum() >= 0
                    && new BigInteger(literal).compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) <= 0;
            Request r;
            try {
                r = CODEC.decodeRequest(line);
            } catch (UnreadableRequest e) {
                assertFalse(whole, "refused a whole number in range: " + line + " → " + e.getMessage());
                assertEquals(UnreadableRequest.Reason.BAD_REQUEST, e.reason(), line);
                assertEquals("\"" + opField[1] + "\" must be a whole number", e.getMessage(), line);
                return;
            }
            assertTrue(whole, "took a number that is no whole number in range: " + line + " → " + r);
            int expected = new BigInteger(literal).intValueExact();
            int got = r instanceof Request.Job j ? j.no()
                    : r instanceof Request.Cancel x ? x.no()
                    : r instanceof Request.Logs l ? l.no()
                    : r instanceof Request.Pause p ? p.gpu()
                    : r instanceof Request.Resume p ? p.gpu()
                    : ((Request.Submit) r).umask().orElseThrow();
            assertEquals(expected, got, line);
        });
    }

    // ---------------------------------------------------------------- the check

    private static void checkEveryLineOf(Sent sent) {
        // The service splits at newlines and answers each line but the blank ones; a line is UTF-8, bad
        // bytes read as U+FFFD, as Connection.takeLine reads it.
        byte[] b = sent.bytes();
        int from = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i == b.length || b[i] == '\n') {
                String line = new String(b, from, i - from, StandardCharsets.UTF_8);
                if (!line.isBlank()) {
                    checkLine(line);
                }
                from = i + 1;
            }
        }
    }

    private static void checkLine(String line) {
        Request r;
        try {
            r = CODEC.decodeRequest(line);
        } catch (UnreadableRequest e) {
            String m = e.getMessage();
            assertTrue(m != null && !m.isBlank(), "a refusal without a message");
            assertTrue(m.length() <= MAX_MESSAGE_CHARS, "a message of " + m.length() + " characters: " + visible(m));
            assertTrue(oneLine(m), "a message of more than one line: " + visible(m));
            return;
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("neither a request nor an UnreadableRequest: " + e, e);
        }
        assertInRange(r);
        String again = CODEC.encode(r);
        // The wire's lines end at LF alone: a NEL or U+2028 inside a JSON string is text, not an end.
        assertTrue(again.indexOf('\n') < 0 && again.indexOf('\r') < 0, "encoded on more than one line: " + visible(again));
        assertEquals(r, CODEC.decodeRequest(again), "reads back as itself");
    }

    /** The numbers the decoder promises, whatever the line said. */
    private static void assertInRange(Request r) {
        // Java 17 has no pattern switch: one instanceof per request that carries a bounded number.
        if (r instanceof Request.Job j) {
            assertTrue(j.no() >= 0, r.toString());
        } else if (r instanceof Request.Cancel c) {
            assertTrue(c.no() >= 0, r.toString());
        } else if (r instanceof Request.Logs l) {
            assertTrue(l.no() >= 0, r.toString());
        } else if (r instanceof Request.Pause p) {
            assertTrue(p.gpu() >= 0, r.toString());
        } else if (r instanceof Request.Resume p) {
            assertTrue(p.gpu() >= 0, r.toString());
        } else if (r instanceof Request.SrunAttach a) {
            assertTrue(a.no() >= 1, r.toString());
        } else if (r instanceof Request.Submit s) {
            assertTrue(s.umask().orElse(0) >= 0, r.toString());
        } else if (r instanceof Request.Srun s) {
            assertTrue(s.umask().orElse(0) >= 0, r.toString());
        } else if (r instanceof Request.Queue q && q.text().isPresent()) {
            Request.Text t = q.text().get();
            assertTrue(t.format().map(String::length).orElse(0) <= Request.Text.MAX_FORMAT_CHARS, r.toString());
            assertTrue(t.width().orElse(1) >= 1 && t.width().orElse(1) <= Request.Text.MAX_WIDTH, r.toString());
            assertTrue(t.user().map(u -> !u.isEmpty() && u.length() <= Request.Text.MAX_USER_CHARS).orElse(true));
        } else if (r instanceof Request.Stats st) {
            assertTrue(st.sinceSeconds().orElse(1) >= 1 && st.sinceSeconds().orElse(1) <= Request.Stats.MAX_SINCE_SECONDS,
                    r.toString());
            assertTrue(st.tolerance().orElse(0) >= 0 && st.tolerance().orElse(0) < 1, r.toString());
            assertTrue(st.user().map(u -> !u.isEmpty() && u.length() <= Request.Stats.MAX_USER_CHARS).orElse(true));
            assertTrue(st.zone().map(z -> !z.isEmpty() && z.length() <= Request.Stats.MAX_ZONE_CHARS).orElse(true));
        }
        // hello, preview, cancel of a user, drain, dashboard, exited (its status is checked where an srun's
        // session takes it): no number with a range here.
    }

    /** No character that ends a line for a reader of text: LF, CR, NEL, the Unicode separators. */
    private static boolean oneLine(String s) {
        return s.chars().noneMatch(c -> c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029);
    }

    private static String visible(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029
                || Character.isSurrogate((char) c) ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return b.toString();
    }

    // ---------------------------------------------------------------- the lines

    private static Gen<Sent> hostileLines() {
        Gen<Sent> mutated = (r, size) -> {
            List<String> examples = EXAMPLES;
            String example = examples.get(r.nextInt(examples.size()));
            byte[] b = example.getBytes(StandardCharsets.UTF_8);
            StringBuilder how = new StringBuilder("example mutated:");
            int n = 1 + r.nextInt(1 + size / 10);
            for (int i = 0; i < n; i++) {
                b = mutate(r, size, b, how);
            }
            return new Sent(b, how.toString());
        };
        Gen<Sent> built = (r, size) -> {
            StringBuilder how = new StringBuilder("built");
            String object = object(r, size, how);
            byte[] b = object.getBytes(StandardCharsets.UTF_8);
            if (r.nextInt(4) == 0) {
                b = mutate(r, size, b, how.append(", then"));
            }
            return new Sent(b, how.toString());
        };
        return Gen.<Sent>weighted().add(2, mutated).add(3, built).build();
    }

    private static final List<String> EXAMPLES = requestExamples();

    /** PROTOCOL.md's request examples, the lines a client sends ({@code →}). */
    private static List<String> requestExamples() {
        try {
            List<String> out = Files.readAllLines(PROTOCOL_MD).stream().filter(l -> l.startsWith("→ {"))
                    .map(l -> l.substring(2)).toList();
            assertTrue(out.size() >= 10, "PROTOCOL.md's request examples: " + out);
            return out;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Bytes that are not UTF-8, or are but mean trouble: NUL, controls, a BOM, separators, surrogates as CESU-8. */
    private static final byte[][] HOSTILE_BYTES = {
        {0}, {1}, {0x1b}, {'\r'}, {'\n'}, {0x7f}, {(byte) 0xff}, {(byte) 0xfe}, {(byte) 0x80}, {(byte) 0xc0, (byte) 0x80},
        {(byte) 0xc3}, {(byte) 0xe2, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
        {(byte) 0xe2, (byte) 0x80, (byte) 0xa8}, {(byte) 0xc2, (byte) 0x85}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {'"'}, {'\\'}, {'{'}, {'}'}, {'['}, {']'}, {','}, {':'}, {'\\', 'u', 'd', '8', '0', '0'}, {'\\', 'u', '0', '0', '0', '0'},
    };

    private static byte[] mutate(RandomGenerator r, int size, byte[] b, StringBuilder how) {
        int at = r.nextInt(b.length + 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length + 16);
        switch (r.nextInt(7)) {
            case 0 -> { // cut short
                how.append(" cut at ").append(at);
                out.write(b, 0, at);
            }
            case 1 -> { // a run of bytes dropped
                int to = Math.min(b.length, at + 1 + r.nextInt(8));
                how.append(" dropped ").append(at).append("..").append(to);
                out.write(b, 0, at);
                out.write(b, to, b.length - to);
            }
            case 2, 3 -> { // a hostile byte or sequence put in
                byte[] h = HOSTILE_BYTES[r.nextInt(HOSTILE_BYTES.length)];
                how.append(" inserted ").append(h.length).append(" bytes at ").append(at);
                out.write(b, 0, at);
                out.write(h, 0, h.length);
                out.write(b, at, b.length - at);
            }
            case 4 -> { // one byte replaced by any byte
                if (at == b.length) {
                    return b;
                }
                byte any = (byte) r.nextInt(256);
                how.append(" byte ").append(at).append(" := ").append(any & 0xff);
                out.write(b, 0, at);
                out.write(any);
                out.write(b, at + 1, b.length - at - 1);
            }
            case 5 -> { // a piece repeated: keys twice, values doubled
                int to = Math.min(b.length, at + 1 + r.nextInt(16));
                how.append(" repeated ").append(at).append("..").append(to);
                out.write(b, 0, to);
                out.write(b, at, to - at);
                out.write(b, to, b.length - to);
            }
            default -> { // a field of any kind put in after the opening brace
                String f = "\"" + key(r) + "\":" + value(r, size, 0) + ",";
                how.append(" field put first");
                byte[] fb = f.getBytes(StandardCharsets.UTF_8);
                int brace = Math.min(1, b.length);
                out.write(b, 0, brace);
                out.write(fb, 0, fb.length);
                out.write(b, brace, b.length - brace);
            }
        }
        return out.toByteArray();
    }

    private static final String[] OPS = {"hello", "submit", "preview", "queue", "job", "cancel", "pause", "resume",
        "drain", "dashboard", "logs", "srun", "srun_attach", "exited", "stats"};
    private static final String[] FIELDS = {"line", "cwd", "env", "output", "request_id", "umask", "no", "gpu", "user",
        "token", "status", "stream", "text", "layout", "format", "width", "ascii", "all", "chunks",
        "since_s", "tolerance", "json", "zone"};

    /** An object: {@code v} and {@code op} usually right, then the fields of some op, each of any type. */
    private static String object(RandomGenerator r, int size, StringBuilder how) {
        List<String> fields = new ArrayList<>();
        switch (r.nextInt(10)) {
            case 0 -> how.append(", no v");
            case 1 -> fields.add("\"v\":" + value(r, size, 0));
            default -> fields.add("\"v\":1");
        }
        switch (r.nextInt(10)) {
            case 0 -> how.append(", no op");
            case 1 -> fields.add("\"op\":" + value(r, size, 0));
            case 2 -> fields.add("\"op\":" + quoted(OPS[r.nextInt(OPS.length)] + (r.nextBoolean() ? "x" : "\\u0000")));
            default -> fields.add("\"op\":\"" + OPS[r.nextInt(OPS.length)] + "\"");
        }
        int n = r.nextInt(2 + size / 10);
        for (int i = 0; i < n; i++) {
            // A right value as often as a wrong one, so the checks after the types are reached too.
            String name = key(r);
            fields.add(quoted(name) + ":" + (r.nextBoolean() ? rightValue(r, size, name) : value(r, size, 0)));
        }
        if (r.nextInt(5) == 0 && fields.size() > 1) {
            fields.add(fields.get(r.nextInt(fields.size())));
            how.append(", a key twice");
        }
        java.util.Collections.shuffle(fields, new java.util.Random(r.nextLong()));
        String ws = r.nextInt(8) == 0 ? " \t\r " : "";
        return "{" + ws + String.join("," + ws, fields) + ws + "}" + (r.nextInt(20) == 0 ? ws + "{}" : "");
    }

    private static String key(RandomGenerator r) {
        return r.nextInt(8) == 0 ? string(r, 20) : FIELDS[r.nextInt(FIELDS.length)];
    }

    /** A value of the type the field takes, in or near its range. */
    private static String rightValue(RandomGenerator r, int size, String name) {
        return switch (name) {
            case "line" -> quoted(r.nextBoolean() ? "[vram=8G] python a.py" : string(r, size * 100));
            case "cwd", "output" -> quoted(r.nextBoolean() ? "/home/ada/exp" : "/" + string(r, size * 10));
            case "request_id", "user", "token", "format" -> quoted(string(r, r.nextInt(4) == 0 ? 1200 : 20));
            case "env" -> "{" + quoted(string(r, 8)) + ":" + quoted(string(r, size)) + ","
                    + quoted(string(r, 8)) + ":" + value(r, size, 1) + "}";
            case "umask", "no", "gpu", "status", "width" -> number(r);
            case "stream", "ascii", "all", "chunks" -> r.nextBoolean() ? "true" : "false";
            case "text" -> "{\"layout\":" + (r.nextBoolean() ? "\"table\"" : "\"list\"") + ",\"width\":" + number(r)
                    + ",\"format\":" + quoted(string(r, r.nextInt(3) == 0 ? 1100 : 20)) + ",\"user\":"
                    + quoted(string(r, r.nextInt(3) == 0 ? 300 : 10)) + ",\"chunks\":" + value(r, size, 1) + "}";
            default -> value(r, size, 0);
        };
    }

    /** Any JSON value, or something close to one that is not. */
    private static String value(RandomGenerator r, int size, int depth) {
        return switch (r.nextInt(12)) {
            case 0, 1 -> number(r);
            case 2 -> quoted(number(r)); // a number as a string
            case 3, 4 -> quoted(string(r, r.nextInt(10) == 0 ? 50_000 + r.nextInt(size * 1000) : 30));
            case 5 -> new String[] {"true", "false", "null"}[r.nextInt(3)];
            case 6 -> new String[] {"NaN", "Infinity", "-Infinity", "nul", "tru", "True", "undefined", "'x'", "0x1f", "+1",
                "01", ".5", "1.", "1e", "--1", "\"unterminated", "\"\\x41\"", "\"\\ud800\"", "\"\\udc00\\ud800\""}[r.nextInt(19)];
            case 7 -> { // nesting, past the limit of 16 now and then
                int d = 1 + r.nextInt(r.nextInt(4) == 0 ? 40 : 8);
                boolean arrays = r.nextBoolean();
                yield (arrays ? "[" : "{\"a\":").repeat(d) + value(r, size, depth + d) + (arrays ? "]" : "}").repeat(d);
            }
            case 8 -> depth > 3 ? "[]" : "[" + value(r, size, depth + 1) + "," + value(r, size, depth + 1) + "]";
            case 9 -> depth > 3 ? "{}" : "{" + quoted(key(r)) + ":" + value(r, size, depth + 1) + "}";
            case 10 -> r.nextBoolean() ? "[1,]" : "{\"a\"}";
            default -> quoted(OPS[r.nextInt(OPS.length)]);
        };
    }

    /** A JSON number literal: edges of int and long, far beyond both, negative, decimal, with exponents. */
    private static String number(RandomGenerator r) {
        return switch (r.nextInt(8)) {
            case 0 -> new String[] {"0", "-0", "1", "-1", "511", "512", "2147483647", "2147483648", "-2147483648",
                "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "-9223372036854775809", "1e999", "-1e999", "1E2", "1e-999", "0.0", "1.5", "7.0", "-0.0", "1e308"}[r.nextInt(24)];
            case 1 -> (r.nextBoolean() ? "-" : "") + "9".repeat(1 + r.nextInt(1100));
            case 2 -> Long.toString(r.nextLong());
            case 3 -> Integer.toString(r.nextInt());
            case 4 -> Double.toString(r.nextDouble() * Math.pow(10, r.nextInt(40) - 10));
            default -> Integer.toString(r.nextInt(100));
        };
    }

    /** Text with what JSON must escape, escaped as JSON may: controls, NUL, lone surrogates, separators. */
    private static String string(RandomGenerator r, int maxChars) {
        int n = r.nextInt(maxChars + 1);
        StringBuilder b = new StringBuilder(n);
        while (b.length() < n) {
            switch (r.nextInt(12)) {
                case 0 -> b.append("\\u0000");
                case 1 -> b.append("\\u00").append(HEX[r.nextInt(2)]).append(HEX[r.nextInt(16)]);
                case 2 -> b.append(r.nextBoolean() ? "\\ud800" : "\\udfff");
                case 3 -> b.append(new String[] {"\\n", "\\r", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f"}[r.nextInt(8)]);
                case 4 -> b.append(new String[] {"é", "中", "🚀", "\u2028", "\u0085", "\u202e", "\ufeff", "\ufffd"}[r.nextInt(8)]);
                case 5 -> b.append(' ');
                default -> b.append((char) ('a' + r.nextInt(26)));
            }
        }
        return b.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** A string already escaped as JSON text wants it ({@link #string} escapes its own), quoted. */
    private static String quoted(String escaped) {
        return "\"" + escaped + "\"";
    }

    /** Integer and decimal literals of up to 1,000 characters, the most a JSON number may have here. */
    private static Gen<String> numberLiterals() {
        return (r, size) -> {
            String sign = r.nextInt(4) == 0 ? "-" : "";
            String digits = switch (r.nextInt(5)) {
                case 0 -> "0";
                case 1 -> String.valueOf(1 + r.nextInt(9)) + digits(r, r.nextInt(999));
                case 2 -> Long.toString(Integer.MAX_VALUE + (long) r.nextInt(-3, 4));
                case 3 -> Long.toString(Math.abs(r.nextLong() >> r.nextInt(64)));
                default -> Integer.toString(r.nextInt(1000));
            };
            String fraction = r.nextInt(5) == 0 ? "." + digits(r, 1 + r.nextInt(5)) : "";
            String exponent = r.nextInt(6) == 0 ? (r.nextBoolean() ? "e" : "E") + (r.nextBoolean() ? "-" : "+")
                    + (1 + r.nextInt(400)) : "";
            // Cut in the integer part, so what is left is still the kind of literal it was drawn as.
            int room = 1000 - sign.length() - fraction.length() - exponent.length();
            return sign + digits.substring(0, Math.min(digits.length(), room)) + fraction + exponent;
        };
    }

    private static String digits(RandomGenerator r, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('0' + r.nextInt(10)));
        }
        return b.toString();
    }

    @Test
    void theGeneratorsReachEveryKindOfAnswer() {
        // Without typed requests among the lines, reads-back would check nothing; without each refusal,
        // the bounds on its message would check nothing.
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        java.util.Set<String> seen = new java.util.TreeSet<>();
        Gen<Sent> lines = hostileLines();
        for (int i = 0; i < 1000; i++) {
            Sent s = lines.next(random, 1 + i % Gen.MAX_SIZE);
            String line = new String(s.bytes(), StandardCharsets.UTF_8);
            try {
                seen.add(CODEC.decodeRequest(line).op());
            } catch (UnreadableRequest e) {
                seen.add(e.reason().code());
            } catch (RuntimeException e) {
                seen.add("other");
            }
        }
        for (String kind : List.of("bad_request", "unsupported_version", "unknown_op", "submit", "queue", "job",
                "cancel", "hello")) {
            if (!seen.contains(kind)) {
                fail("never reached " + kind + "; reached " + seen);
            }
        }
    }
}
