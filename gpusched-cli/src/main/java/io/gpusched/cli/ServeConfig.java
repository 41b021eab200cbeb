package io.gpusched.cli;

import io.gpusched.jobs.DidYouMean;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gpusched serve}'s configuration file: {@code key = value} lines whose keys are serve's long options
 * without {@code --}, bare keys for flags, {@code #} comments. It becomes options put in front of the real
 * command line before {@link CliArgs#parse(boolean, String...)} sees them, so every option works in the file
 * with the same checks; an option the command line gives too is taken from the command line alone.
 *
 * <p>Which file: {@code --config FILE}, else {@value #SYSTEM_FILE} for root's daemon, else
 * {@code $XDG_CONFIG_HOME/gpusched/gpusched.conf} (or {@code ~/.config/...}); a default file that does not
 * exist is no configuration. {@code --config /dev/null} reads none.
 *
 * <p>Values: the rest of the line after {@code =}, trimmed, up to a {@code #} that follows a space; or
 * quoted, {@code "..."} (with {@code \"} and {@code \\}) or {@code '...'} (literal), to keep a {@code #} or
 * surrounding spaces. A flag takes no value, or {@code true}/{@code false} ({@code yes}/{@code no},
 * {@code on}/{@code off}).
 */
final class ServeConfig {
    /** What the file is, for the man page and the example file's head (the only copy). */
    static final String HELP = String.join("\n",
            "gpusched serve reads options from a configuration file before its command line: --config FILE,",
            "else /etc/gpusched/gpusched.conf when run by root, else $XDG_CONFIG_HOME/gpusched/gpusched.conf",
            "(~/.config/gpusched/gpusched.conf); a default file that is not there is no configuration, and",
            "--config /dev/null reads none. One option a line, key = value, the key being the long option",
            "without --; a flag alone (exclusive), or with = true or = false. # starts a comment at the start",
            "of a line or after a space; quote a value to keep a # or spaces in it: on-finish = \"notify-send",
            "'job done' #1\" (with \\\" and \\\\ inside double quotes; single quotes keep everything). Options on",
            "the command line win over the file's (a flag the file sets stays set). fresh is refused: it would",
            "remove the journal at every start. A bad key or value stops the daemon with FILE:LINE and what",
            "to write instead. The file must not be writable by its group or others.");

    /** Root's daemon reads this file when {@code --config} does not name another. */
    static final String SYSTEM_FILE = "/etc/gpusched/gpusched.conf";

    /** One line that set something: the option, its value (none for a flag), where. */
    record Entry(String key, Optional<String> value, Path file, int line) {
        String where() {
            return file + ":" + line;
        }
    }

    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9-]*");
    /**
     * Options that make no sense in a file read at every start: --fresh would remove the journal each
     * time; --config names the file itself; the others print and exit, or are another mode.
     */
    private static final Set<String> NOT_KEYS = Set.of("fresh", "config", "help", "version", "executor");

    private final List<Entry> entries;

    private ServeConfig(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    List<Entry> entries() {
        return entries;
    }

    /**
     * The keys a file may set, each with the name of its value (none for a flag): serve's options, from
     * the table its spec is made from ({@link CliArgs#serveOptions()}), less {@link #NOT_KEYS}.
     */
    static Map<String, Optional<String>> keys() {
        Map<String, Optional<String>> keys = new LinkedHashMap<>();
        CliArgs.serveOptions().forEach((option, label) -> {
            String key = option.replaceFirst("^--", "");
            if (!NOT_KEYS.contains(key)) {
                keys.put(key, label);
            }
        });
        return keys;
    }

    /**
     * {@code gpusched serve ARGV}: the configuration file's options, then ARGV, parsed as one command
     * line. ARGV is read alone first (picocli, no value checked yet) for its {@code --config} and
     * {@code --help}: so its own mistakes are not blamed on the file, and a broken file cannot hide the
     * help that fixes it.
     *
     * @param argv what follows the word serve
     * @throws UsageException naming the file and line of a bad entry, or the line that set an option a
     *     check refused
     */
    static CliArgs parseServe(String... argv) {
        if (argv.length > 0 && argv[argv.length - 1].equals("--config")) {
            // in the words the file's own errors use
            throw new UsageException("--config needs a file (see gpusched --help)");
        }
        CliArgs.Words line = CliArgs.read(true, argv);
        if (line.help() || line.value("--version").isPresent()) {
            return CliArgs.parse(true, argv);
        }
        Optional<String> named = line.value("--config");
        Optional<String> empty = OptionValues.emptyValue("--config", "FILE", named.orElse("-"));
        if (empty.isPresent()) {
            throw new UsageException(empty.get()); // not 'configuration file  is not a regular file'
        }
        ServeConfig config = (named.isPresent() ? read(Path.of(named.get()), true) : read(defaultFile(), false))
                .without(line.options().stream().map(CliArgs.Given::name).collect(java.util.stream.Collectors.toSet()));
        List<String> all = new ArrayList<>(config.argv());
        all.addAll(List.of(argv));
        try {
            return CliArgs.parse(true, all.toArray(String[]::new));
        } catch (UsageException e) {
            throw new UsageException(config.blame(e.getMessage()));
        }
    }

    /** The file this user's daemon reads without {@code --config}. */
    static Path defaultFile() {
        if ("root".equals(System.getProperty("user.name"))) {
            return Path.of(SYSTEM_FILE);
        }
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && xdg.startsWith("/") ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("gpusched").resolve("gpusched.conf");
    }

    /**
     * @param file the configuration file
     * @param named whether {@code --config} named it (then it must exist)
     * @throws UsageException when it cannot be read, may be written by others than its owner, or has a bad line
     */
    static ServeConfig read(Path file, boolean named) {
        if (file.equals(Path.of("/dev/null"))) {
            return new ServeConfig(List.of());
        }
        String text;
        try {
            if (!Files.isRegularFile(file) && Files.exists(file)) {
                throw new UsageException("configuration file " + file + " is not a regular file; name the file with --config");
            }
            requireOwnersOnly(file);
            text = utf8(Files.readAllBytes(file), file);
        } catch (NoSuchFileException e) {
            if (named) {
                throw new UsageException("configuration file " + file + " not found (--config); give an existing file,"
                        + " or --config /dev/null for none");
            }
            return new ServeConfig(List.of());
        } catch (IOException e) {
            throw new UsageException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        return parse(text, file);
    }

    /** The file's text, or {@code FILE:LINE:} at the first line that is not UTF-8. */
    private static String utf8(byte[] bytes, Path file) {
        java.util.OptionalInt bad = Utf8Lines.firstBadLine(bytes, false);
        if (bad.isPresent()) {
            throw new UsageException(file + ":" + bad.getAsInt() + ": line is not valid UTF-8; save the configuration file"
                    + " as UTF-8");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The daemon runs as whoever owns the file or as root, and its options run commands ({@code on-finish})
     * and pick files: a file another user may write would hand them the daemon.
     */
    private static void requireOwnersOnly(Path file) throws IOException {
        String owner = Files.getOwner(file).getName();
        String me = System.getProperty("user.name", "?");
        if (!owner.equals(me) && !owner.equals("root")) {
            throw new UsageException("configuration file " + file + " belongs to " + owner + ", not to " + me
                    + " or root: its options would run as " + me + "; chown " + me + " " + file);
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new UsageException("configuration file " + file + " may be written by its group or others, and its"
                    + " options (on-finish runs a command) apply to the daemon: chmod go-w " + file);
        }
    }

    /**
     * @param text the file's contents
     * @param file its name, for the errors
     * @throws UsageException {@code FILE:LINE: what is wrong} at the first bad line
     */
    static ServeConfig parse(String text, Path file) {
        Map<String, Optional<String>> keys = keys();
        List<Entry> entries = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int no = i + 1;
            String line = lines[i].strip();
            String where = file + ":" + no + ": ";
            if (line.indexOf('\0') >= 0) {
                // Number parsing would drop it unseen, and no command or path can hold one.
                throw new UsageException(where + "NUL byte in line; remove it");
            }
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            String key = (eq < 0 ? line : line.substring(0, eq)).strip();
            if (key.startsWith("-")) {
                throw new UsageException(where + "write the key without dashes: " + key.replaceFirst("^-+", "")
                        + (eq < 0 ? "" : " = ..."));
            }
            if (!KEY.matcher(key).matches() || !keys.containsKey(key)) {
                String hint = key.equals("fresh") ? " (fresh would remove the journal at every start: give --fresh"
                        + " on the command line, once)"
                        : DidYouMean.suggest(key, keys.keySet()).map(s -> " — did you mean " + s + "?").orElse("");
                throw new UsageException(where + "unknown key '" + key + "'" + hint
                        + " (keys are gpusched serve's long options without --; see gpusched --help)");
            }
            if (seen.containsKey(key)) {
                throw new UsageException(where + key + " is already set on line " + seen.get(key) + "; keep one");
            }
            seen.put(key, no);
            Optional<String> value = eq < 0 ? Optional.empty() : Optional.of(value(line.substring(eq + 1), where, key));
            boolean flag = keys.get(key).isEmpty();
            if (flag) {
                if (value.isEmpty() || truth(value.get(), where, key)) {
                    entries.add(new Entry(key, Optional.empty(), file, no));
                }
            } else {
                if (value.isEmpty() || value.get().isEmpty()) {
                    throw new UsageException(where + key + " needs a value: " + key + " = VALUE (see gpusched --help)");
                }
                entries.add(new Entry(key, value, file, no));
            }
        }
        return new ServeConfig(entries);
    }

    private static boolean truth(String v, String where, String key) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "", "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new UsageException(where + key + " is a flag: write it alone, or " + key
                    + " = true or false, not '" + v + "'");
        };
    }

    /** The text after {@code =}: quoted or not, a trailing comment dropped. */
    private static String value(String raw, String where, String key) {
        String s = raw.strip();
        if (s.startsWith("\"") || s.startsWith("'")) {
            char q = s.charAt(0);
            StringBuilder out = new StringBuilder();
            int i = 1;
            for (; i < s.length() && s.charAt(i) != q; i++) {
                char c = s.charAt(i);
                if (q == '"' && c == '\\' && i + 1 < s.length() && (s.charAt(i + 1) == '"' || s.charAt(i + 1) == '\\')) {
                    c = s.charAt(++i);
                }
                out.append(c);
            }
            if (i >= s.length()) {
                throw new UsageException(where + key + "'s value has no closing " + q);
            }
            String after = s.substring(i + 1).strip();
            if (!after.isEmpty() && !after.startsWith("#")) {
                throw new UsageException(where + "text after " + key + "'s quoted value: '" + after
                        + "'; put it inside the quotes, or after a #");
            }
            return out.toString();
        }
        Matcher comment = Pattern.compile("\\s#").matcher(s);
        return (comment.find() ? s.substring(0, comment.start()) : s).strip();
    }

    /**
     * This file less the lines that set an option the command line gives too: the command line wins, and
     * an option given twice on one command line is refused ({@link OptionValues#givenTwice}), so the two
     * never meet there.
     *
     * @param options long option names the command line gives ({@code --poll})
     */
    ServeConfig without(Set<String> options) {
        return new ServeConfig(entries.stream().filter(e -> !options.contains("--" + e.key())).toList());
    }

    /** The entries as command-line words, in the file's order: {@code --poll 5 --exclusive}. */
    List<String> argv() {
        List<String> out = new ArrayList<>();
        for (Entry e : entries) {
            out.add("--" + e.key());
            e.value().ifPresent(out::add);
        }
        return out;
    }

    /**
     * A command-line check's message, with the file and line of each option it names that this file set:
     * {@code --poll needs a number, got 'x' (--poll from /etc/gpusched/gpusched.conf:4)}.
     */
    String blame(String message) {
        List<String> from = new ArrayList<>();
        for (Entry e : entries) {
            if (Pattern.compile("--" + Pattern.quote(e.key()) + "(?![a-z0-9-])").matcher(message).find()) {
                from.add("--" + e.key() + " from " + e.where());
            }
        }
        return from.isEmpty() ? message : message + " (" + String.join(", ", from) + ")";
    }
}
