package io.gpusched.testkit.sim;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One simulated job's self-reported usage, the content of {@code <pid>.json}:
 * {@code {"pid": 4242, "usage": {"0": 8000, "1": 8000}}}.
 *
 * @param pid the reporting process
 * @param usageMib GPU index to MiB that process pretends to hold there
 */
record UsageReport(long pid, Map<Integer, Long> usageMib) {
    UsageReport {
        usageMib = Map.copyOf(usageMib);
    }

    /**
     * Reads a report. A hand-written reader rather than a JSON library because the format is fixed
     * and tiny and this runs for every file on every snapshot. Other keys are skipped, so the format
     * can grow.
     *
     * @param text the file content
     * @return the report, or empty when the text is not one (torn, garbage, negative numbers)
     */
    static Optional<UsageReport> parse(String text) {
        try {
            return Optional.of(new Reader(text).report());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            return Optional.empty();
        }
    }

    /** Recursive descent over just enough JSON; any surprise throws IllegalArgumentException. */
    private static final class Reader {
        private final String s;
        private int i;

        Reader(String s) {
            this.s = s;
        }

        UsageReport report() {
            Long pid = null;
            Map<Integer, Long> usage = null;
            expect('{');
            if (!peekIs('}')) {
                do {
                    String key = string();
                    expect(':');
                    switch (key) {
                        case "pid" -> pid = number();
                        case "usage" -> usage = usage();
                        default -> skipValue();
                    }
                } while (tryConsume(','));
            }
            expect('}');
            skipWhitespace();
            if (i != s.length() || pid == null || usage == null || pid <= 0) {
                throw new IllegalArgumentException("not a usage report");
            }
            return new UsageReport(pid, usage);
        }

        private Map<Integer, Long> usage() {
            Map<Integer, Long> usage = new TreeMap<>();
            expect('{');
            if (!peekIs('}')) {
                do {
                    String key = string();
                    expect(':');
                    if (!key.matches("[0-9]{1,9}")) {
                        throw new IllegalArgumentException("bad GPU index " + key);
                    }
                    usage.merge(Integer.parseInt(key), number(), Long::sum);
                } while (tryConsume(','));
            }
            expect('}');
            return usage;
        }

        /** A non-negative whole number; the writers never emit anything else. */
        private long number() {
            skipWhitespace();
            int start = i;
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            if (start == i || i - start > 15) {
                throw new IllegalArgumentException("expected a whole number at " + start);
            }
            return Long.parseLong(s.substring(start, i));
        }

        private String string() {
            expect('"');
            int start = i;
            while (s.charAt(i) != '"') {
                if (s.charAt(i) == '\\') {
                    i++;
                }
                i++;
            }
            return s.substring(start, i++);
        }

        private void skipValue() {
            skipWhitespace();
            char c = s.charAt(i);
            if (c == '"') {
                string();
            } else if (c == '{' || c == '[') {
                skipNested();
            } else {
                // number, true, false or null: everything up to the next delimiter
                while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
                    i++;
                }
            }
        }

        private void skipNested() {
            int depth = 0;
            do {
                char c = s.charAt(i);
                if (c == '"') {
                    string();
                    continue;
                }
                if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    depth--;
                }
                i++;
            } while (depth > 0);
        }

        private void expect(char c) {
            skipWhitespace();
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i);
            }
            i++;
        }

        private boolean tryConsume(char c) {
            if (peekIs(c)) {
                i++;
                return true;
            }
            return false;
        }

        private boolean peekIs(char c) {
            skipWhitespace();
            return i < s.length() && s.charAt(i) == c;
        }

        private void skipWhitespace() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
