package io.gpusched.testkit.properties;

import io.gpusched.jobs.Units;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEvent;
import io.gpusched.testkit.arbitraries.Gen;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Journal events over their whole valid ranges, and journal lines written independently of the
 * codec: the fields of an event as JSON literals, in any order and spacing, with or without
 * {@code \\uXXXX} escapes for non-ASCII (as the Python original writes them), so the tests can also
 * break exactly one field and know the line must be refused.
 */
final class JournalLines {
    static final int MAX_NO = 1_000_000_000;
    static final int MAX_ATTEMPTS = 1_000_000;
    static final List<String> STATUSES = List.copyOf(new java.util.TreeSet<>(JobRecord.TERMINAL));

    private JournalLines() {
    }

    /** One field: its name and its value exactly as JSON text. */
    record Field(String name, String json) {
    }

    /** Keys as gpusched writes them, and odd ones (quotes, backslashes, controls, non-ASCII). */
    static Gen<String> keys() {
        Gen<String> hex = Gen.strings(Gen.elements("0", "1", "2", "7", "9", "a", "b", "c", "e", "f"), 12, 12);
        Gen<String> realistic = hex.with(Gen.ints(0, 3), (h, n) -> h + "#" + n);
        Gen<String> odd = Gen.strings(Gen.elements("k", "#", "0", "\"", "\\", "\t", "\n", "\u0000", "\u001f", "é", "中", "🚀",
                "\u2028", "\u007f", " ", "/"), 1, 12);
        return Gen.<String>weighted().add(4, realistic).add(1, odd).build();
    }

    /** Text of any valid Unicode: ASCII, controls, quotes and escapes, BMP and astral characters. */
    static Gen<String> texts() {
        Gen<String> piece = Gen.<String>weighted()
                .add(6, Gen.ints('a', 'z').map(c -> String.valueOf((char) c.intValue())))
                .add(2, Gen.elements(" ", "\"", "\\", "/", "\t", "\n", "\r", "\u0000", "\u001b", "\u007f", "\u0085", "\u2028"))
                .add(2, Gen.ints(0xA0, 0xD7FF).map(c -> String.valueOf((char) c.intValue())))
                .add(1, Gen.ints(0x10000, 0x10FFFF).map(Character::toString))
                .build();
        return Gen.strings(piece, 0, 30);
    }

    /** Any event this version writes, each field anywhere in its accepted range, bounds favoured. */
    static Gen<JournalEvent> events() {
        Gen<JournalEvent> seen = (r, size) -> new JournalEvent.Seen(keys().next(r, size), Gen.ints(1, MAX_NO).next(r, size),
                texts().next(r, size));
        Gen<JournalEvent> started = (r, size) -> new JournalEvent.Started(keys().next(r, size),
                Gen.longs(2, Integer.MAX_VALUE).next(r, size), Gen.listOf(Gen.ints(0, Integer.MAX_VALUE), 0, 8).next(r, size),
                r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(Gen.longs(1, Units.MAX_MIB).next(r, size)));
        Gen<JournalEvent> launching = (r, size) -> new JournalEvent.Launching(keys().next(r, size),
                Gen.longs(1, Long.MAX_VALUE - 1).next(r, size), Gen.listOf(Gen.ints(0, Integer.MAX_VALUE), 0, 8).next(r, size));
        Gen<JournalEvent> interrupted = (r, size) -> new JournalEvent.Interrupted(keys().next(r, size));
        Gen<JournalEvent> retry = (r, size) -> new JournalEvent.Retry(keys().next(r, size));
        Gen<JournalEvent> paused = (r, size) -> {
            int gpu = Gen.ints(0, Integer.MAX_VALUE).next(r, size);
            java.util.Optional<String> device = r.nextBoolean() ? java.util.Optional.empty()
                    : java.util.Optional.of((r.nextBoolean() ? "GPU-" : "MIG-") + Integer.toHexString(r.nextInt(1 << 16)));
            return new JournalEvent.GpuPaused(JournalEvent.GpuPaused.keyOf(gpu), gpu, device, r.nextBoolean());
        };
        Gen<JournalEvent> submitted = (r, size) -> new JournalEvent.Submitted(keys().next(r, size),
                Gen.ints(1, 1_000_000_000).next(r, size), texts().next(r, size),
                r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(Gen.longs(1, Units.MAX_MIB).next(r, size)),
                Gen.ints(1, 1024).next(r, size),
                r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(Gen.longs(1, Long.MAX_VALUE).next(r, size)),
                Gen.ints(0, 1000).next(r, size), texts().next(r, size), texts().next(r, size), texts().next(r, size),
                Gen.longs(0, Long.MAX_VALUE).next(r, size), env(r, size),
                r.nextBoolean() ? java.util.Optional.empty() : java.util.Optional.of(texts().next(r, size)),
                r.nextBoolean() ? java.util.Optional.empty() : java.util.Optional.of("/" + texts().next(r, size)),
                r.nextBoolean() ? java.util.Optional.empty() : java.util.Optional.of(texts().next(r, size)));
        Gen<OptionalLong> nextVram = Gen.<OptionalLong>weighted()
                .add(1, Gen.constant(OptionalLong.empty()))
                .add(3, Gen.longs(1, Units.MAX_MIB).map(OptionalLong::of))
                .build();
        Gen<JournalEvent> oom = (r, size) -> new JournalEvent.Oom(keys().next(r, size), Gen.ints(1, MAX_ATTEMPTS).next(r, size),
                nextVram.next(r, size));
        Gen<OptionalDouble> util = Gen.<OptionalDouble>weighted()
                .add(1, Gen.constant(OptionalDouble.empty()))
                .add(2, (r, size) -> OptionalDouble.of(r.nextDouble() * 100))
                .add(1, Gen.elements(0.0, -0.0, 100.0, 84.0, 1e-300, -5.5, 1e300, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE)
                        .map(OptionalDouble::of))
                .build();
        Gen<Map<Integer, Long>> peaks = Gen.listOf(Gen.ints(0, Integer.MAX_VALUE).with(Gen.longs(0, Long.MAX_VALUE), Map::entry), 0, 6)
                .map(entries -> {
                    Map<Integer, Long> m = new TreeMap<>();
                    entries.forEach(e -> m.put(e.getKey(), e.getValue()));
                    return m;
                });
        Gen<List<JournalEvent.VramPoint>> timeline = Gen.listOf(Gen.longs(0, Long.MAX_VALUE)
                .with(Gen.longs(0, Long.MAX_VALUE), JournalEvent.VramPoint::new), 0, 40);
        Gen<JournalEvent> done = (r, size) -> new JournalEvent.Done(keys().next(r, size), Gen.elements(STATUSES).next(r, size),
                Gen.ints(Integer.MIN_VALUE, Integer.MAX_VALUE).next(r, size), peaks.next(r, size), util.next(r, size),
                timeline.next(r, size));
        return Gen.oneOf(seen, submitted, launching, started, interrupted, retry, paused, oom, done);
    }

    /** The event's fields, in the order gpusched writes them. */
    static List<Field> fields(JournalEvent e, boolean ascii) {
        List<Field> f = new ArrayList<>();
        f.add(new Field("key", string(e.key(), ascii)));
        if (e instanceof JournalEvent.Seen s) {
            f.add(new Field("event", "\"seen\""));
            f.add(new Field("no", Integer.toString(s.no())));
            f.add(new Field("command", string(s.command(), ascii)));
        } else if (e instanceof JournalEvent.Submitted s) {
            f.add(new Field("event", "\"submitted\""));
            f.add(new Field("no", Integer.toString(s.no())));
            f.add(new Field("command", string(s.command(), ascii)));
            f.add(new Field("vram", s.vramMib().isPresent() ? Long.toString(s.vramMib().getAsLong()) : "null"));
            f.add(new Field("gpus", Integer.toString(s.gpus())));
            f.add(new Field("timeout_ns", s.timeoutNanos().isPresent() ? Long.toString(s.timeoutNanos().getAsLong()) : "null"));
            f.add(new Field("retries", Integer.toString(s.retries())));
            f.add(new Field("source", string(s.source(), ascii)));
            f.add(new Field("owner", string(s.owner(), ascii)));
            f.add(new Field("cwd", string(s.cwd(), ascii)));
            f.add(new Field("submitted_at_ms", Long.toString(s.submittedAtMillis())));
            s.line().ifPresent(line -> f.add(new Field("line", string(line, ascii))));
            s.output().ifPresent(out -> f.add(new Field("output", string(out, ascii))));
            s.requestId().ifPresent(id -> f.add(new Field("request_id", string(id, ascii))));
            s.env().ifPresent(env -> {
                List<String> entries = new ArrayList<>();
                env.forEach((name, value) -> entries.add(string(name, ascii) + ": " + string(value, ascii)));
                f.add(new Field("env", "{" + String.join(", ", entries) + "}"));
            });
        } else if (e instanceof JournalEvent.Launching l) {
            f.add(new Field("event", "\"launching\""));
            f.add(new Field("run", Long.toString(l.run())));
            f.add(new Field("gpus", l.gpus().toString()));
        } else if (e instanceof JournalEvent.Started s) {
            f.add(new Field("event", "\"started\""));
            f.add(new Field("pgid", Long.toString(s.pgid())));
            f.add(new Field("gpus", s.gpus().toString()));
            s.vramMib().ifPresent(v -> f.add(new Field("vram", Long.toString(v))));
        } else if (e instanceof JournalEvent.Interrupted) {
            f.add(new Field("event", "\"interrupted\""));
        } else if (e instanceof JournalEvent.GpuPaused p) {
            f.add(new Field("event", "\"gpu_paused\""));
            f.add(new Field("gpu", Integer.toString(p.gpu())));
            p.device().ifPresent(d -> f.add(new Field("device", string(d, ascii))));
            f.add(new Field("paused", Boolean.toString(p.paused())));
        } else if (e instanceof JournalEvent.Retry) {
            f.add(new Field("event", "\"retry\""));
        } else if (e instanceof JournalEvent.Oom o) {
            f.add(new Field("event", "\"oom\""));
            f.add(new Field("attempts", Integer.toString(o.attempts())));
            f.add(new Field("next_vram", o.nextVramMib().isPresent() ? Long.toString(o.nextVramMib().getAsLong()) : "null"));
        } else if (e instanceof JournalEvent.Done d) {
            f.add(new Field("event", "\"done\""));
            f.add(new Field("status", string(d.status(), ascii)));
            f.add(new Field("returncode", Integer.toString(d.returncode())));
            StringBuilder peaks = new StringBuilder("{");
            d.peakMib().forEach((gpu, mib) -> peaks.append(peaks.length() > 1 ? ", " : "").append('"').append(gpu).append("\": ").append(mib));
            f.add(new Field("peak_mib", peaks.append('}').toString()));
            f.add(new Field("avg_util", d.avgUtil().isPresent() ? Double.toString(d.avgUtil().getAsDouble()) : "null"));
            if (!d.vramTimeline().isEmpty()) {
                StringBuilder t = new StringBuilder("[");
                d.vramTimeline().forEach(p -> t.append(t.length() > 1 ? ", " : "").append('[').append(p.ms()).append(", ")
                        .append(p.mib()).append(']'));
                f.add(new Field("vram_timeline", t.append(']').toString()));
            }
        }
        return f;
    }

    /** The names an event of this kind must have (beyond key and event). */
    static List<String> required(JournalEvent e) {
        if (e instanceof JournalEvent.Seen) {
            return List.of("no", "command");
        } else if (e instanceof JournalEvent.Launching) {
            return List.of("run", "gpus");
        } else if (e instanceof JournalEvent.Started) {
            return List.of("pgid", "gpus");
        } else if (e instanceof JournalEvent.Oom) {
            return List.of("attempts", "next_vram");
        } else if (e instanceof JournalEvent.Done) {
            return List.of("status", "returncode", "peak_mib", "avg_util");
        } else if (e instanceof JournalEvent.Submitted) {
            return List.of("no", "command", "vram", "gpus", "timeout_ns", "retries", "source", "owner", "cwd",
                    "submitted_at_ms");
        } else if (e instanceof JournalEvent.GpuPaused) {
            return List.of("gpu", "paused");
        }
        return List.of();
    }

    /**
     * JSON values a field of this name never accepts: other types, and numbers out of range,
     * fractional or in exponent form where a whole number is needed.
     */
    static List<String> wrongValues(String name) {
        List<String> notNumber = List.of("\"1\"", "true", "[]", "[1]", "{}", "{\"a\": 1}");
        List<String> notString = List.of("null", "5", "true", "[]", "[\"x\"]", "{}");
        List<String> specific = switch (name) {
            case "key" -> List.of("\"\"");
            case "event", "command" -> List.of();
            case "status" -> List.of("\"running\"", "\"pending\"", "\"OK\"", "\"\"");
            case "no" -> List.of("null", "0", "-1", "1.0", "1e3", "1e30", "1000000001", "2147483648", "-2147483649",
                    "99999999999999999999", "0.5");
            case "pgid" -> List.of("null", "0", "1", "-1", "-4242", "2147483648", "1e30", "4242.0", "9223372036854775808");
            case "run" -> List.of("null", "0", "-1", "1.0", "1e3", "1e30", "9223372036854775807", "9223372036854775808");
            case "attempts" -> List.of("null", "0", "-1", "1000001", "1.0", "2147483648");
            case "vram" -> List.of("0", "-1", "2147483648", "9750.5", "1e4", "9223372036854775808");
            case "timeout_ns" -> List.of("0", "-1", "1.5", "1e3", "9223372036854775808");
            case "retries" -> List.of("null", "-1", "1001", "1.0");
            case "submitted_at_ms", "at_ms" -> List.of("null", "-1", "1.5", "1e3", "9223372036854775808");
            case "gpu" -> List.of("null", "-1", "1.5", "2147483648");
            case "paused" -> List.of("null", "1", "0", "\"true\"", "[]", "{}");
            case "source", "owner", "cwd" -> List.of();
            case "next_vram" -> List.of("0", "-1", "2147483648", "9750.5", "1e4", "9223372036854775808");
            case "returncode" -> List.of("null", "2147483648", "-2147483649", "0.0", "1e2");
            case "avg_util" -> List.of("1e400", "-1e400");
            case "gpus" -> List.of("null", "0", "\"0\"", "true", "{}", "{\"0\": 0}", "[-1]", "[0.5]", "[\"0\"]", "[[0]]",
                    "[null]", "[2147483648]", "[0, -1]", "[true]");
            case "peak_mib" -> List.of("null", "0", "true", "[]", "[7800]", "\"x\"", "{\"x\": 1}", "{\"0\": -1}", "{\"01\": 1}",
                    "{\"-1\": 1}", "{\"+1\": 1}", "{\"0\": 1.5}", "{\"0\": 1e3}", "{\"0\": null}", "{\"0\": \"1\"}",
                    "{\"0\": 9223372036854775808}", "{\"2147483648\": 1}", "{\"0\": {\"x\": 1}}", "{\"0\": 1, \"0\": 2}",
                    "{\" 0\": 1}", "{\"\": 1}", "{\"\u0661\": 1}");
            default -> throw new IllegalArgumentException(name);
        };
        List<String> all = new ArrayList<>(specific);
        switch (name) {
            case "key", "event", "command", "status", "source", "owner", "cwd" -> all.addAll(notString);
            case "no", "run", "pgid", "attempts", "next_vram", "returncode", "avg_util", "vram", "timeout_ns", "retries",
                    "submitted_at_ms", "at_ms", "gpu" -> all.addAll(notNumber);
            default -> {
            }
        }
        return all;
    }

    /** Writes fields as one JSON object: {@code ", "}/{@code ": "} separators (Python's) or none. */
    static String render(List<Field> fields, boolean spaced) {
        StringBuilder sb = new StringBuilder("{");
        for (Field f : fields) {
            if (sb.length() > 1) {
                sb.append(spaced ? ", " : ",");
            }
            sb.append(string(f.name(), true)).append(spaced ? ": " : ":").append(f.json());
        }
        return sb.append('}').toString();
    }

    /** A JSON string literal; with {@code ascii}, every non-ASCII UTF-16 unit as {@code \\uXXXX}, as Python writes. */
    static String string(String s, boolean ascii) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || (ascii && c > 0x7e)) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** No environment, an empty one, or a few entries of arbitrary text (names without '=' or NUL). */
    private static java.util.Optional<java.util.Map<String, String>> env(java.util.random.RandomGenerator r, int size) {
        if (r.nextInt(3) == 0) {
            return java.util.Optional.empty();
        }
        java.util.Map<String, String> env = new java.util.HashMap<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            String name = texts().next(r, size).replace("=", "").replace("\0", "");
            env.put(name.isEmpty() ? "N" + i : name, texts().next(r, size));
        }
        return java.util.Optional.of(env);
    }
}
