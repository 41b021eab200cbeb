package io.gpusched.jobs;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads a jobs file: one shell command per line, blank lines and {@code #} comments skipped, and an
 * optional leading {@code [k=v ...]} block with keys {@code vram}, {@code gpus}, {@code timeout},
 * {@code retries} and the bare token {@code cancel} (keys are case-insensitive). Brackets later in a
 * command belong to the command. Any malformed line raises a {@link JobSpecException}; nothing is
 * skipped silently.
 */
public final class JobsFileParser {
    /** The most GPUs one job may ask for; far more than one machine has, small enough to be safe. */
    public static final int MAX_GPUS = 1024;
    /** The most OOM retries one line may ask for. */
    public static final int MAX_RETRIES = 1000;

    private static final String KNOWN_KEYS = "known keys: vram, gpus, timeout, retries, cancel";

    private JobsFileParser() {
    }

    /**
     * Reads and parses a jobs file as UTF-8 (a leading BOM and CRLF line ends are accepted).
     *
     * @param file the jobs file
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException on the first malformed line, or if the bytes are not UTF-8
     * @throws java.io.UncheckedIOException if the file cannot be read
     */
    public static List<JobSpec> parse(Path file) {
        String name = String.valueOf(file.getFileName());
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read jobs file " + file + ": " + e.getMessage(), e);
        }
        return parse(bytes, name);
    }

    /**
     * Parses jobs-file bytes as UTF-8 (a leading BOM and CRLF line ends are accepted), for a caller
     * that has read the file itself, e.g. to check it was not being written meanwhile.
     *
     * @param content the file's bytes
     * @param source the name used in error messages, usually the file name
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException on the first malformed line, or if the bytes are not UTF-8
     */
    public static List<JobSpec> parse(byte[] content, String source) {
        return parse(decode(content, source), source);
    }

    /**
     * Parses jobs-file text.
     *
     * @param text the whole file content
     * @param source the name used in error messages, usually the file name
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException on the first malformed line
     */
    public static List<JobSpec> parse(String text, String source) {
        List<JobSpec> jobs = new ArrayList<>();
        JobKeys.Occurrences occurrences = new JobKeys.Occurrences();
        int lineNo = 0;
        int start = 0;
        int n = text.length();
        if (n > 0 && text.charAt(0) == '\uFEFF') {
            start = 1;
        }
        while (start <= n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            lineNo++;
            String raw = text.substring(start, end);
            Optional<Parsed> parsed = parseRaw(raw, source, lineNo);
            if (parsed.isPresent()) {
                Parsed p = parsed.get();
                int occurrence = occurrences.next(p.command);
                jobs.add(p.toSpec(lineNo, JobKeys.key(p.command, occurrence)));
            }
            start = end + 1;
        }
        return jobs;
    }

    /** Parses one job line; blank lines and comments are errors here because they hold no job. */
    static JobSpec parseLine(String line, String source, int lineNo) {
        Parsed p = parseRaw(line, source, lineNo).orElseThrow(() ->
                new JobSpecException(source, lineNo, line.strip(), "no command in", "write a shell command, optionally after a [k=v ...] block"));
        return p.toSpec(lineNo, JobKeys.key(p.command, 0));
    }

    private static String decode(byte[] bytes, String source) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new JobSpecException(source, firstBadLine(bytes), "<bytes>", "file is not valid UTF-8 near",
                    "save the jobs file as UTF-8");
        }
    }

    private static int firstBadLine(byte[] bytes) {
        // Decode line by line to find where the invalid sequence sits.
        int line = 1;
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                try {
                    StandardCharsets.UTF_8.newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes, start, i - start));
                } catch (CharacterCodingException e) {
                    return line;
                }
                line++;
                start = i + 1;
            }
        }
        return 1;
    }

    /** Empty for blank lines and comments. */
    private static Optional<Parsed> parseRaw(String raw, String source, int lineNo) {
        String line = raw.strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return Optional.empty();
        }
        if (line.indexOf('\0') >= 0) {
            throw new JobSpecException(source, lineNo, line, "NUL byte in line", "remove the NUL byte; a shell command cannot contain one");
        }
        Parsed p = new Parsed();
        String command = line;
        if (line.startsWith("[")) {
            int close = line.indexOf(']');
            if (close < 0) {
                throw new JobSpecException(source, lineNo, line, "unterminated [ block in",
                        "close the attribute block with ']' before the command");
            }
            parseBlock(line.substring(1, close), source, lineNo, p);
            command = line.substring(close + 1).strip();
            if (command.isEmpty()) {
                throw new JobSpecException(source, lineNo, line, "no command after the attribute block in",
                        "put the shell command after the closing ']'");
            }
        }
        p.command = command;
        return Optional.of(p);
    }

    private static void parseBlock(String block, String source, int lineNo, Parsed p) {
        Set<String> seen = new HashSet<>();
        for (String token : block.strip().split("\\s+")) {
            if (token.isEmpty()) {
                continue;
            }
            int eq = token.indexOf('=');
            if (eq < 0) {
                if (!token.equalsIgnoreCase("cancel")) {
                    throw new JobSpecException(source, lineNo, token, "token without '=' in attribute block:",
                            "write key=value or the bare word cancel; " + KNOWN_KEYS
                                    + " (a command that starts with '[' needs an empty block first: [] [ -f x ] && ...)");
                }
                checkOnce(seen, "cancel", token, source, lineNo);
                p.cancel = true;
                continue;
            }
            String key = token.substring(0, eq).toLowerCase(Locale.ROOT);
            String value = token.substring(eq + 1);
            checkOnce(seen, key, token, source, lineNo);
            switch (key) {
                case "vram" -> p.vram = OptionalLong.of(Units.parseMib(value).orElseThrow(() ->
                        new JobSpecException(source, lineNo, token, "bad vram", "give positive MiB like 18000, or a size like 18G, 1.5GiB, 512MiB (at most "
                                + Units.MAX_MIB + " MiB)")));
                case "gpus" -> p.gpus = parseInt(value, 1, MAX_GPUS).orElseThrow(() ->
                        new JobSpecException(source, lineNo, token, "bad gpus", "give a whole number of GPUs from 1 to " + MAX_GPUS));
                case "timeout" -> p.timeout = Optional.of(Units.parseDuration(value).orElseThrow(() ->
                        new JobSpecException(source, lineNo, token, "bad timeout", "give a positive duration like 90, 90s, 15m, 2h, 1.5d (at most 3650d)")));
                case "retries" -> p.retries = parseInt(value, 0, MAX_RETRIES).orElseThrow(() ->
                        new JobSpecException(source, lineNo, token, "bad retries", "give a whole number from 0 to " + MAX_RETRIES));
                case "cancel" -> throw new JobSpecException(source, lineNo, token, "cancel takes no value:", "write the bare word cancel");
                default -> throw new JobSpecException(source, lineNo, token, "unknown key in attribute block:", KNOWN_KEYS);
            }
        }
    }

    private static void checkOnce(Set<String> seen, String key, String token, String source, int lineNo) {
        if (!seen.add(key)) {
            throw new JobSpecException(source, lineNo, token, "duplicate key " + key + " in attribute block:", "give each key once");
        }
    }

    private static Optional<Integer> parseInt(String value, int min, int max) {
        if (value.isEmpty() || value.length() > 10 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        long v = Long.parseLong(value);
        return v < min || v > max ? Optional.empty() : Optional.of((int) v);
    }

    /** Mutable scratch while one line is read. */
    private static final class Parsed {
        String command;
        OptionalLong vram = OptionalLong.empty();
        int gpus = 1;
        Optional<Duration> timeout = Optional.empty();
        int retries;
        boolean cancel;

        JobSpec toSpec(int lineNo, String key) {
            return new JobSpec(command, vram, gpus, timeout, retries, cancel, lineNo, key);
        }
    }
}
