package io.gpusched.jobs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a jobs file: one shell command per line, blank lines and {@code #} comments skipped, and an
 * optional leading {@code [k=v ...]} block with the keys and bare words of {@link Attribute}'s table
 * ({@code vram}, {@code gpus}, {@code timeout}, ..., the bare words {@code cancel}, {@code preemptible}
 * and {@code tty}; keys are case-insensitive, each at most once), each read as its row says. A value may be quoted, so it can
 * hold spaces and {@code ]}: {@code setup='. venv/bin/activate'} (see {@code AttributeBlock}). Brackets
 * later in a command belong to the command. Any
 * malformed line raises a {@link JobSpecException}; nothing is skipped silently. The exception names
 * the first bad line and carries the others, up to {@link #MAX_REPORTED_ERRORS}
 * ({@link JobSpecException#errors()}), so they can be fixed in one go.
 *
 * <p>A file is also checked as a whole, after its last line: each {@code name} on one line only,
 * each name in {@code after}, {@code after-ok} and {@code after-any} given by some line (a
 * {@code cancel}led one counts), and no cycle of dependencies. Those errors are on the line at
 * fault and join the others in file order. A single line ({@link JobSpec#parse}) has no file, so
 * only a job waiting for itself is refused there.
 *
 * <p>Hostile input is bounded: a line may hold at most {@link #MAX_LINE_BYTES} bytes and a file at
 * most {@link #MAX_FILE_BYTES}, so a stray binary or a runaway generator costs a one-line error, not
 * the scheduler's memory.
 *
 * <p>Why one long file: it is one grammar with its hostile-input bounds and its incremental twin, which
 * must agree line for line; the scheduling attributes' syntax ({@code SchedulingSyntax}) and the
 * whole-file checks ({@code JobsFileChecks}) are apart.
 */
public final class JobsFileParser {
    /** The most GPUs one job may ask for; far more than one machine has, small enough to be safe. */
    public static final int MAX_GPUS = 1024;
    /** The most OOM retries one line may ask for. */
    public static final int MAX_RETRIES = 1000;
    /**
     * The longest line, in UTF-8 bytes without its line end: 64 KiB, hundreds of times a real command
     * line, small enough that every line (and the journal line that records its command) stays cheap.
     */
    public static final int MAX_LINE_BYTES = 64 * 1024;
    /**
     * The largest jobs file read, in bytes: 16 MiB, about 200,000 typical lines. Only files are
     * checked; text handed to {@link #parse(String, String)} is already in memory.
     */
    public static final int MAX_FILE_BYTES = 16 * 1024 * 1024;
    /**
     * The most bad lines one {@link JobSpecException} carries ({@link JobSpecException#errors()}): enough
     * to fix a file in one go, few enough to read; the rest are only counted.
     */
    public static final int MAX_REPORTED_ERRORS = 20;

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    /** The keys and bare words of {@link Attribute}'s table, in its order, for messages and did-you-mean. */
    private static final List<String> KEYS = Attribute.keys();
    private static final List<String> BARE_WORDS = Attribute.bareWords();
    private static final String KNOWN_KEYS = "known keys: " + String.join(", ", KEYS);
    /**
     * A comma before another {@code key=} or a bare word: a separator written as in other tools.
     * Commas inside a value ({@code gpu-ids=0,2-3}, {@code after=prep,train}) are not matched; a job
     * cannot be named like a bare word ({@link Scheduling#NAME}), so {@code [after=prep,preemptible]}
     * is this mistake, never a second name.
     */
    private static final Pattern COMMA_SEPARATOR = Pattern.compile(",\\s*(?=[A-Za-z][A-Za-z0-9_-]*=|(?i:"
            + String.join("|", BARE_WORDS.stream().map(Pattern::quote).toList()) + ")(?![^\\s,]))");

    private JobsFileParser() {
    }

    /**
     * Writes a value as an attribute block reads it back: bare when it can be, else in quotes, e.g.
     * {@code quote(". venv/bin/activate")} is {@code '. venv/bin/activate'}, for a tool that writes
     * {@code [setup=...]} lines.
     *
     * @param value any value without a line break or NUL
     * @return it bare when it holds no whitespace or {@code ]} and does not start with a quote; else in
     *     single quotes; else (it holds a {@code '}) in double quotes with {@code \} and {@code "} escaped
     */
    public static String quote(String value) {
        return AttributeBlock.quote(value);
    }

    /**
     * Reads and parses a jobs file as UTF-8 (a leading BOM and CRLF line ends are accepted).
     *
     * @param file the jobs file
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException naming the first malformed line: bad syntax, bytes that are not UTF-8, a
     *     line over {@link #MAX_LINE_BYTES}, or the line where the file passes {@link #MAX_FILE_BYTES};
     *     its {@link JobSpecException#errors()} go on with the next ones (none after one of the last
     *     three kinds, which stop the reading)
     * @throws java.io.UncheckedIOException if the file cannot be read
     */
    public static List<JobSpec> parse(Path file) {
        String name = String.valueOf(file.getFileName());
        JobsLines.Content bytes = read(file);
        return new Collector(name, false, new JobKeys.Occurrences(), new JobsFileChecks.Names())
                .collect(c -> JobsLines.split(bytes, name, c)).jobs;
    }

    private static JobsLines.Content read(Path file) {
        try {
            return JobsLines.read(file);
        } catch (IOException e) {
            // The exception's own message is often the path alone (an AccessDeniedException's).
            String why = e instanceof java.nio.file.AccessDeniedException ? "permission denied; fix with chmod u+r " + file
                    : e instanceof java.nio.file.NoSuchFileException ? "not found"
                    : e.getMessage() == null ? "I/O error" : e.getMessage();
            throw new java.io.UncheckedIOException("cannot read jobs file " + file + ": " + why, e);
        }
    }

    /**
     * Parses jobs-file bytes as UTF-8 (a leading BOM and CRLF line ends are accepted), for a caller
     * that has read the file itself, e.g. to check it was not being written meanwhile. The limits hold
     * as for {@link #parse(Path)}; a caller that reads at most {@link #MAX_FILE_BYTES} + 1 bytes keeps
     * its own memory bounded too, and still gets the error for a file that is too big.
     *
     * @param content the file's bytes (all of them, or its first {@link #MAX_FILE_BYTES} + 1)
     * @param source the name used in error messages, usually the file name
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException naming the first malformed line and carrying the next, as
     *     {@link #parse(Path)} does
     */
    public static List<JobSpec> parse(byte[] content, String source) {
        return collect(content, source).jobs;
    }

    private static Collector collect(byte[] content, String source) {
        JobsLines.Content whole = new JobsLines.Content(content, content.length, content.length <= MAX_FILE_BYTES);
        return new Collector(source, false, new JobKeys.Occurrences(), new JobsFileChecks.Names())
                .collect(c -> JobsLines.split(whole, source, c));
    }

    /**
     * Parses jobs-file text.
     *
     * @param text the whole file content
     * @param source the name used in error messages, usually the file name
     * @return the jobs in file order, with keys numbered by occurrence
     * @throws JobSpecException naming the first malformed line and carrying the next, as
     *     {@link #parse(Path)} does
     */
    public static List<JobSpec> parse(String text, String source) {
        return new Collector(source, true, new JobKeys.Occurrences(), new JobsFileChecks.Names())
                .collect(c -> JobsLines.split(text, source, c)).jobs;
    }

    /**
     * Parses successive versions of one jobs file, re-reading only the lines appended since the last
     * version when that is all that changed: a queue that grows by appends (a sweep script adding
     * lines, {@code echo >>}) then costs its new lines, not the whole file, per change. The result
     * is always what {@link #parse(byte[], String)} gives for the same bytes. Not thread-safe.
     */
    public static final class Incremental {
        private final String source;
        private byte[] parsedBytes;
        private List<JobSpec> jobs = List.of();
        private JobKeys.Occurrences occurrences = new JobKeys.Occurrences();
        // The names of the last version taken; the next append is checked against them.
        private JobsFileChecks.Names names = new JobsFileChecks.Names();
        private int lines;

        /** @param source the name used in error messages, usually the file name */
        public Incremental(String source) {
            this.source = source;
        }

        /**
         * @param content the file's bytes, as for {@link #parse(byte[], String)}; the array must not be
         *     changed afterwards (it is kept to recognise the next version as an append)
         * @return the jobs in file order, with keys numbered by occurrence; an immutable list
         * @throws JobSpecException naming the first malformed line and carrying the next, as
         *     {@link #parse(byte[], String)} does; the previous version stays the base for the next call
         */
        public List<JobSpec> parse(byte[] content) {
            Collector c;
            int linesBefore = appendedFrom(content);
            if (linesBefore >= 0) {
                int from = parsedBytes.length;
                c = new Collector(source, false, occurrences.copy(), names).collect(sink -> JobsLines.split(
                        new JobsLines.Content(content, content.length, true), from, linesBefore, source, sink));
                List<JobSpec> all = new ArrayList<>(jobs.size() + c.jobs.size());
                all.addAll(jobs);
                all.addAll(c.jobs);
                jobs = List.copyOf(all);
            } else {
                c = collect(content, source);
                jobs = List.copyOf(c.jobs);
                names = c.names;
            }
            occurrences = c.occurrences;
            lines = (linesBefore >= 0 ? linesBefore : 0) + countLines(content, linesBefore >= 0 ? parsedBytes.length : 0);
            parsedBytes = content;
            return jobs;
        }

        /**
         * @return the number of lines before the appended part when {@code content} is the last parsed
         *     version, which ended with a newline, plus more bytes (within the file limit); else -1
         */
        private int appendedFrom(byte[] content) {
            byte[] old = parsedBytes;
            if (old == null || old.length == 0 || old[old.length - 1] != '\n' || content.length < old.length
                    || content.length > MAX_FILE_BYTES) {
                return -1;
            }
            return Arrays.equals(content, 0, old.length, old, 0, old.length) ? lines : -1;
        }

        private static int countLines(byte[] content, int from) {
            int n = 0;
            for (int i = from; i < content.length; i++) {
                if (content[i] == '\n') {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * Parses lines in file order into specs keyed by occurrence, gathers the bad lines, and after the
     * last line adds the bad lines the {@linkplain JobsFileChecks file-level checks} find.
     */
    private static final class Collector implements JobsLines.Sink {
        final List<JobSpec> jobs = new ArrayList<>();
        private final List<JobSpecException> errors = new ArrayList<>();
        private int badLines;
        private final JobKeys.Occurrences occurrences;
        /** The names of the lines before the first this collector sees, and, once it succeeded, of its own. */
        final JobsFileChecks.Names names;
        private final JobsFileChecks checks;
        private final String source;
        private final boolean checkSurrogates;

        /**
         * @param occurrences the counts of the lines before the first this collector sees; advanced in place
         * @param names the names those lines give; extended in place only when every line is good
         */
        Collector(String source, boolean checkSurrogates, JobKeys.Occurrences occurrences, JobsFileChecks.Names names) {
            this.source = source;
            this.checkSurrogates = checkSurrogates;
            this.occurrences = occurrences;
            this.names = names;
            this.checks = new JobsFileChecks(source, names);
        }

        @Override
        public void line(String raw, int lineNo) {
            Optional<Parsed> parsed;
            try {
                // A file's CR before LF is its line end; so is one that ends the file's last line.
                parsed = parseRaw(raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw, source, lineNo,
                        checkSurrogates, true);
            } catch (JobSpecException e) {
                bad(e);
                checks.bad(lineNo, SchedulingSyntax.nameIn(raw));
                return;
            }
            if (parsed.isEmpty()) {
                return;
            }
            Parsed p = parsed.get();
            if (p.name.isPresent() || !p.after.isEmpty()) {
                checks.good(new JobsFileChecks.Entry(lineNo, p.name, List.copyOf(p.after)));
            }
            // Once a line is bad the jobs are never returned: the rest is only checked, not keyed.
            if (badLines == 0) {
                jobs.add(p.toSpec(lineNo, JobKeys.key(p.command, occurrences.next(p.command))));
            }
        }

        private void bad(JobSpecException e) {
            badLines++;
            if (errors.size() < MAX_REPORTED_ERRORS) {
                errors.add(e);
            }
        }

        /**
         * Feeds this collector with {@code split}'s lines.
         *
         * @return this, when every line was good
         * @throws JobSpecException the first bad line's, carrying the next ones
         */
        Collector collect(Consumer<JobsLines.Sink> split) {
            boolean complete = true;
            try {
                split.accept(this);
            } catch (JobSpecException e) {
                // Only the splitter's own checks escape line(): a line too long, not UTF-8, or past the
                // file limit. The reading stops there; what follows may not even be lines.
                bad(e);
                complete = false;
            }
            List<JobsFileChecks.Problem> problems = checks.problems(complete);
            if (badLines + problems.size() > 0) {
                List<JobSpecException> all = merge(errors, problems);
                throw all.get(0).withLater(all.subList(1, all.size()), badLines + problems.size());
            }
            checks.commit();
            return this;
        }

        /** The first {@link #MAX_REPORTED_ERRORS} of both, in line order (each line has at most one). */
        private static List<JobSpecException> merge(List<JobSpecException> syntax, List<JobsFileChecks.Problem> file) {
            List<JobSpecException> all = new ArrayList<>(MAX_REPORTED_ERRORS);
            int i = 0;
            int j = 0;
            while (all.size() < MAX_REPORTED_ERRORS && (i < syntax.size() || j < file.size())) {
                if (j == file.size() || (i < syntax.size() && syntax.get(i).line() < file.get(j).line())) {
                    all.add(syntax.get(i++));
                } else {
                    all.add(file.get(j++).error().get());
                }
            }
            return all;
        }
    }

    /** Parses one job line typed now (a submission); blank lines and comments are errors here because they hold no job. */
    static JobSpec parseLine(String line, String source, int lineNo) {
        return parseLine(line, source, lineNo, true);
    }

    /**
     * Parses one job line; blank lines and comments are errors here because they hold no job.
     *
     * @param typed whether the line is new input (a submission), which must meet {@link TypedCommands}'
     *     rules too; false for a line this program wrote itself, e.g. read back from the journal
     */
    static JobSpec parseLine(String line, String source, int lineNo, boolean typed) {
        // The line end a caller may have kept (LF or CRLF) is not part of the line, as in a file; nor is
        // a CR that ends a typed line, as one that ends a file's last line. A recorded line has no line end:
        // its command is kept whole.
        int end = line.endsWith("\n") ? line.length() - 1 : line.length();
        JobsLines.checkLength(line, 0, end, source, lineNo);
        boolean crEnd = end > 0 && line.charAt(end - 1) == '\r' && (typed || end < line.length());
        String body = line.substring(0, crEnd ? end - 1 : end);
        if (body.indexOf('\n') >= 0) {
            throw new JobSpecException(source, lineNo, TypedCommands.stripBlanks(body), "line break in job line",
                    "give one job per line; a command cannot span lines: join its lines with ';', or put them in a script");
        }
        Parsed p = parseRaw(body, source, lineNo, true, typed).orElseThrow(() ->
                new JobSpecException(source, lineNo, body.strip(), "no command in", "write a shell command, optionally after a [k=v ...] block"));
        return p.toSpec(lineNo, JobKeys.key(p.command, 0));
    }

    /**
     * Empty for blank lines and comments.
     *
     * @param raw the line less its line end: its LF, and the CR of a CRLF
     * @param typed whether the line is new input, which must meet {@link TypedCommands}' rules too
     */
    private static Optional<Parsed> parseRaw(String raw, String source, int lineNo, boolean checkSurrogates, boolean typed) {
        // Only blanks a shell reads as separators are taken off the ends; other whitespace is part of the
        // command, as it is of a shell word, unless the line holds nothing else.
        String line = TypedCommands.stripBlanks(raw);
        if (line.isBlank()) {
            return Optional.empty();
        }
        if (line.startsWith("#")) {
            if (typed) {
                // Lines with CR ends read as one: its comment would skip the jobs after it unseen.
                TypedCommands.checkNoCr(line, source, lineNo);
            }
            return Optional.empty();
        }
        if (line.indexOf('\0') >= 0) {
            throw new JobSpecException(source, lineNo, line, "NUL byte in line", "remove the NUL byte; a shell command cannot contain one");
        }
        // Text decoded from a file is valid Unicode already; a String from an API caller may hold half a
        // surrogate pair, which would reach the shell and the identity hash as '?'.
        if (checkSurrogates && hasUnpairedSurrogate(line)) {
            throw new JobSpecException(source, lineNo, line, "unpaired UTF-16 surrogate in line",
                    "pass the line as valid Unicode text");
        }
        Parsed p = new Parsed();
        String command = line;
        if (line.startsWith("[")) {
            AttributeBlock block = AttributeBlock.read(line, source, lineNo).orElseThrow(() ->
                    new JobSpecException(source, lineNo, line, "unterminated [ block in",
                            "close the attribute block with ']' before the command"));
            parseBlock(block, source, lineNo, p);
            command = TypedCommands.stripBlanks(line.substring(block.close() + 1));
            if (command.isBlank()) {
                throw new JobSpecException(source, lineNo, line, "no command after the attribute block in",
                        "put the shell command after the closing ']'");
            }
            checkBlock(p, source, lineNo);
        }
        if (typed) {
            TypedCommands.check(command, TypedCommands.trailingBlanks(raw), source, lineNo);
        }
        p.command = command;
        return Optional.of(p);
    }

    /** What must hold between the attributes of one block. */
    private static void checkBlock(Parsed p, String source, int lineNo) {
        JobSpec.Builder spec = p.spec;
        if (spec.share.isPresent() && (spec.vramMib.isPresent() || spec.learnVram)) {
            // Two answers to one question: a share is a different MiB on each card, vram the same on all.
            throw JobSpecException.stated(source, lineNo, p.gpusToken, p.vramToken + " and " + p.gpusToken
                    + " both say how much memory the job needs", "keep one: " + p.gpusToken
                    + " (that share of whichever GPU it gets) or " + p.vramToken + " (the same MiB on any GPU)");
        }
        if (p.onTimeout == Scheduling.OnTimeout.REQUEUE && spec.timeout.isEmpty()) {
            throw JobSpecException.stated(source, lineNo, p.onTimeoutToken, p.onTimeoutToken + " needs a timeout on the same line",
                    "add one, e.g. [timeout=2h on-timeout=requeue]");
        }
        if (!p.gpuIds.isEmpty() && spec.gpus > p.gpuIds.size()) {
            int pinned = p.gpuIds.size();
            throw JobSpecException.stated(source, lineNo, "gpus=" + spec.gpus, "gpus=" + spec.gpus + " but gpu-ids lists " + pinned
                    + (pinned == 1 ? " GPU" : " GPUs"), "ask for at most " + pinned + " or list more GPUs in gpu-ids");
        }
        for (SchedulingSyntax.Dep d : p.after) {
            if (p.name.isPresent() && d.name().equals(p.name.get())) {
                throw JobSpecException.stated(source, lineNo, d.token(),
                        d.token() + " makes a cycle: " + d.name() + " -> " + d.name(), "remove one of these dependencies");
            }
        }
    }

    private static void parseBlock(AttributeBlock block, String source, int lineNo, Parsed p) {
        Set<String> seen = new HashSet<>();
        for (AttributeBlock.Token t : block.tokens()) {
            try {
                parseAttribute(t, source, lineNo, p, seen);
            } catch (JobSpecException e) {
                throw commaSeparated(block.attributes(), t.start(), t.end(), source, lineNo).orElse(e);
            }
        }
    }

    private static void parseAttribute(AttributeBlock.Token t, String source, int lineNo, Parsed p, Set<String> seen) {
        String token = t.text();
        Attribute.Where at = new Attribute.Where(token, source, lineNo);
        if (t.value().isEmpty()) {
            String word = token.toLowerCase(Locale.ROOT);
            Optional<Attribute> bare = Attribute.forKey(word).filter(Attribute::bare);
            if (bare.isEmpty()) {
                // A key without '=' (vram 8G) is told by the rest of the message.
                throw unknown(source, lineNo, token, token, BARE_WORDS, "token without '=' in attribute block:",
                        "write key=value or a bare word (" + String.join(", ", BARE_WORDS) + "); " + KNOWN_KEYS
                                + " (a command that starts with '[' needs an empty block first: [] [ -f x ] && ...)");
            }
            checkOnce(seen, word, token, source, lineNo);
            bare.get().read("", at, p);
            return;
        }
        String key = t.name().toLowerCase(Locale.ROOT);
        checkOnce(seen, key, token, source, lineNo);
        Attribute a = Attribute.forKey(key).orElseThrow(() ->
                unknown(source, lineNo, token, key, KEYS, "unknown key in attribute block:", KNOWN_KEYS));
        if (a.bare()) {
            throw new JobSpecException(source, lineNo, token, key + " takes no value:", "write the bare word " + key);
        }
        a.read(t.value().get(), at, p);
    }

    /**
     * When a token failed because it holds attributes written with commas between them
     * ({@code [vram=8G,gpus=2]}), the error that says so, with the block rewritten; the token's own
     * error (about vram) would send the user the wrong way.
     *
     * @param attributes the stripped block
     * @param start where the failed token starts in it
     * @param end where it ends
     */
    private static Optional<JobSpecException> commaSeparated(String attributes, int start, int end, String source,
                                                             int lineNo) {
        Matcher m = COMMA_SEPARATOR.matcher(attributes).region(start, attributes.length());
        if (!m.find() || m.start() >= end) {
            return Optional.empty();
        }
        String spaced = COMMA_SEPARATOR.matcher(attributes).replaceAll(" ").strip();
        String fixed = "[" + String.join(" ", WHITESPACE.split(spaced)) + "]";
        return Optional.of(JobSpecException.withoutToken(source, lineNo, attributes.substring(start, end),
                "attributes are separated by spaces, not commas:", "write " + fixed));
    }

    /** The error for a word that is not known, with a did-you-mean when one known word is close to it. */
    private static JobSpecException unknown(String source, int lineNo, String token, String word, List<String> known,
                                            String problem, String expected) {
        return DidYouMean.suggest(word, known)
                .map(s -> JobSpecException.withNote(source, lineNo, token, problem, "— did you mean '" + s + "'?", expected))
                .orElseGet(() -> new JobSpecException(source, lineNo, token, problem, expected));
    }

    private static void checkOnce(Set<String> seen, String key, String token, String source, int lineNo) {
        if (!seen.add(key)) {
            throw new JobSpecException(source, lineNo, token, "duplicate key " + key + " in attribute block:", "give each key once");
        }
    }

    /** Plain ASCII digits (leading zeros allowed) in [min, max]; anything longer than int range is out at once. */
    static OptionalInt parseInt(String value, int min, int max) {
        OptionalInt v = SchedulingSyntax.parseInt(value, max);
        return v.isPresent() && v.getAsInt() < min ? OptionalInt.empty() : v;
    }

    static boolean hasUnpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Mutable scratch while one line is read: the job's own components in a builder, the scheduling and
     * environment facets that become one record each at the end, and the tokens that messages about
     * several attributes name.
     */
    static final class Parsed {
        final JobSpec.Builder spec = new JobSpec.Builder();
        String command;
        String vramToken = "";
        String gpusToken = "";
        int priority;
        List<String> gpuIds = List.of();
        boolean preemptible;
        Scheduling.OnTimeout onTimeout = Scheduling.OnTimeout.FAIL;
        String onTimeoutToken = "";
        Optional<String> name = Optional.empty();
        final List<SchedulingSyntax.Dep> after = new ArrayList<>();
        Optional<String> conda = Optional.empty();
        Optional<String> setup = Optional.empty();
        boolean tty;

        JobSpec toSpec(int lineNo, String key) {
            Scheduling s = priority == 0 && gpuIds.isEmpty() && !preemptible && onTimeout == Scheduling.OnTimeout.FAIL
                    && name.isEmpty() && after.isEmpty()
                    ? Scheduling.DEFAULT
                    : new Scheduling(priority, gpuIds, preemptible, onTimeout, name,
                            after.stream().map(SchedulingSyntax.Dep::toDependency).toList());
            RunEnvironment env = conda.isEmpty() && setup.isEmpty() && !tty ? RunEnvironment.DEFAULT
                    : new RunEnvironment(conda, setup, tty);
            return spec.command(command).line(lineNo).key(key).scheduling(s).environment(env).build();
        }
    }
}
