package io.gpusched.jobs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.gpusched.alloc.GpuShare;
import io.gpusched.model.GpuschedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a requirements file ({@code --requirements FILE}) with jackson-core's streaming API:
 * <pre>{@code
 * {
 *   "rules": [
 *     {"name": "qwen2.5-7b", "match": "--llm qwen2.5-7b", "vram": "16G"},
 *     {"name": "70b", "match": "re:(?i)llama.*70b", "vram": "80G", "gpus": 2, "timeout": "12h"}
 *   ],
 *   "default": {"vram": "8G"}
 * }
 * }</pre>
 * A rule's {@code match} is a literal substring of the command, or {@code re:} and a Java regular
 * expression; {@code vram} (MiB, or {@code G}/{@code M} suffixes), {@code gpus} (whole GPUs, or a share
 * of one such as {@code 0.5}), {@code timeout} (seconds, or {@code s}/{@code m}/{@code h}/{@code d}) and
 * {@code retries} take the jobs file's units, as a JSON string or number; {@code name} (defaults to the
 * match text) and {@code comment} are free text.
 *
 * <p>It also reads gpu_scheduler's {@code llm_config.json} as that tool writes it:
 * <pre>{@code
 * {"default_requirement": 1.0, "models": {"qwen2.5-3b-inst": 0.5, "qwen2.5-vl-32b-inst": 2.0}}
 * }</pre>
 * Each model becomes a rule named after it that matches a command whose {@code --llm} argument is
 * that name, exactly ({@code --llm NAME} or {@code --llm=NAME}, as a whole word); the
 * {@code default_requirement} becomes the default. A requirement is read as gpu_scheduler places it:
 * below 1 a share of one GPU ({@link GpuShare}: that fraction of its memory), 1 one whole GPU (an
 * undeclared job, alone on an idle GPU), above 1 that many whole GPUs, rounded up. One file holds one of
 * the two forms. Every mistake is one line naming the file, the line, the rule or model and the fix.
 */
public final class RequirementsParser {
    /** The largest file read, in bytes: a rule list is small; a stray binary costs an error, not memory. */
    public static final int MAX_BYTES = 1 << 20;

    private static final JsonFactory JSON = new JsonFactory();
    private static final List<String> TOP_KEYS = List.of("rules", "default", "comment", "default_requirement", "models");
    private static final List<String> RULE_KEYS = List.of("name", "match", "vram", "gpus", "timeout", "retries", "comment");

    private RequirementsParser() {
    }

    /**
     * A malformed requirements file: its message is one line, {@code FILE:LINE: what; the fix}.
     */
    public static final class RequirementsException extends GpuschedException {
        private static final long serialVersionUID = 1L;

        /** @param message the one-line message */
        public RequirementsException(String message) {
            super(message);
        }
    }

    /**
     * @param file the requirements file
     * @return its rules
     * @throws RequirementsException if it is missing, unreadable, too large or malformed
     */
    public static Requirements read(Path file) {
        String name = String.valueOf(file.getFileName());
        byte[] bytes;
        try {
            java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(file,
                    java.nio.file.attribute.BasicFileAttributes.class);
            if (a.isDirectory()) {
                throw new RequirementsException(name + ": " + file + " is a directory; give --requirements the rules"
                        + " file (JSON) itself");
            }
            if (!a.isRegularFile()) {
                // Never opened: a FIFO's open waits for a writer, and a device like /dev/zero never ends.
                throw new RequirementsException(name + ": " + file + " is not a regular file (a FIFO, a device or a"
                        + " socket); write the rules to a file and give --requirements that");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw new RequirementsException(name + ": file is over " + MAX_BYTES + " bytes; a requirements file "
                        + "is a short JSON list of rules — check that --requirements names the right file");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            String why = e instanceof java.nio.file.NoSuchFileException ? "not found"
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e.getMessage() == null ? "I/O error" : e.getMessage();
            throw new RequirementsException(name + ": cannot read " + file + " (" + why
                    + "); check the path given to --requirements");
        }
        return parse(bytes, name);
    }

    /**
     * @param json the file's bytes, UTF-8
     * @param name the file's name, for messages
     * @return its rules
     * @throws RequirementsException if malformed
     */
    public static Requirements parse(byte[] json, String name) {
        try (JsonParser p = JSON.createParser(json)) {
            return new Reader(p, name).file();
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
            throw new RequirementsException(name + ":" + line + ": not valid JSON: " + e.getOriginalMessage()
                    .replaceAll("\\s+", " ") + "; fix the syntax (a missing comma, quote or bracket?)");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One parse: the parser and where messages point. */
    private record Reader(JsonParser p, String name) {
        Requirements file() throws IOException {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw error(null, "the file must be a JSON object", "write {\"rules\": [{\"match\": \"...\", \"vram\": \"16G\"}], "
                        + "\"default\": {...}}");
            }
            List<Requirements.Rule> rules = new ArrayList<>();
            Requirements.Rule fallback = Requirements.Rule.NONE;
            // Which form the file is in: ours (rules, default) or gpu_scheduler's (models, default_requirement).
            Optional<String> ours = Optional.empty();
            Optional<String> theirs = Optional.empty();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                if (key.equals("rules") || key.equals("default")) {
                    ours = ours.or(() -> Optional.of(key));
                } else if (key.equals("models") || key.equals("default_requirement")) {
                    theirs = theirs.or(() -> Optional.of(key));
                }
                if (ours.isPresent() && theirs.isPresent()) {
                    throw error(null, "\"" + ours.get() + "\" and \"" + theirs.get() + "\" in one file", "a file is either "
                            + "gpusched's rules (rules, default) or gpu_scheduler's llm_config.json (models, "
                            + "default_requirement); keep one of the two");
                }
                switch (key) {
                    case "rules" -> {
                        if (p.currentToken() != JsonToken.START_ARRAY) {
                            throw error(null, "\"rules\" must be a list", "write \"rules\": [{...}, {...}]");
                        }
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            rules.add(rule("rule " + (rules.size() + 1), false));
                        }
                    }
                    case "default" -> fallback = rule("default", true);
                    case "models" -> rules.addAll(models());
                    case "default_requirement" -> fallback = requirement("default_requirement", "default", "", false);
                    case "comment" -> p.skipChildren();
                    default -> throw error(null, "unknown key '" + key + "' at the top" + didYouMean(key, TOP_KEYS),
                            "known keys: " + String.join(", ", TOP_KEYS));
                }
            }
            if (p.nextToken() != null) {
                throw error(null, "text after the closing }", "the file holds one JSON object");
            }
            return new Requirements(rules, fallback);
        }

        /** gpu_scheduler's {@code "models": {"NAME": 0.5, ...}}: a rule per model, in the file's order. */
        private List<Requirements.Rule> models() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error(null, "\"models\" must be an object", "write \"models\": {\"qwen2.5-7b-inst\": 1.0, "
                        + "\"qwen2.5-3b-inst\": 0.5}");
            }
            List<Requirements.Rule> out = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String model = p.currentName();
                p.nextToken();
                String where = "models: \"" + printable(model) + "\"";
                if (model.isEmpty() || !model.equals(model.strip()) || model.chars().anyMatch(c -> Character.isWhitespace(c)
                        || Character.isISOControl(c)) || model.length() > 200) {
                    throw error(where, "is not a model name as --llm takes it", "give the word the commands pass to "
                            + "--llm, without spaces (at most 200 characters)");
                }
                if (!seen.add(model)) {
                    throw error(where, "is listed twice", "keep one entry per model");
                }
                // Whole words only: --llm qwen2.5-7b must not take the rule of qwen2.5-7b-inst, nor the reverse.
                String regex = "(?<!\\S)--llm(?:\\s+|=)(['\"]?)" + Pattern.quote(model) + "\\1(?![^\\s;&|)])";
                out.add(requirement(where, model, regex, true));
            }
            return out;
        }

        /**
         * A gpu_scheduler requirement, at the parser's current value: below 1 a share of one GPU, 1 one
         * whole GPU, above 1 that many whole GPUs rounded up (as gpu_scheduler places 1.5: on 2 free GPUs).
         */
        private Requirements.Rule requirement(String where, String ruleName, String regex, boolean isRule) throws IOException {
            JsonToken t = p.currentToken();
            String fix = "write how much of a GPU it needs: a share of one GPU above 0 and below 1 (at most "
                    + GpuShare.MAX_DIGITS + " decimals) such as 0.5, or whole GPUs such as 1 or 2";
            if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw error(where, "must be a number", fix);
            }
            String v = p.getText().strip();
            BigDecimal n;
            try {
                n = v.length() > 64 ? null : new BigDecimal(v);
            } catch (NumberFormatException e) {
                n = null;
            }
            if (n == null || n.signum() <= 0 || n.compareTo(BigDecimal.valueOf(JobsFileParser.MAX_GPUS)) > 0) {
                throw error(where, "bad GPU requirement '" + printable(v) + "'", fix + " (at most "
                        + JobsFileParser.MAX_GPUS + ")");
            }
            Optional<GpuShare> share = Optional.empty();
            OptionalInt gpus = OptionalInt.empty();
            if (n.compareTo(BigDecimal.ONE) < 0) {
                n = n.stripTrailingZeros();
                if (n.scale() > GpuShare.MAX_DIGITS) {
                    throw error(where, "bad GPU requirement '" + printable(v) + "'", fix);
                }
                share = Optional.of(new GpuShare(n));
            } else {
                gpus = OptionalInt.of(n.setScale(0, RoundingMode.CEILING).intValueExact());
            }
            return new Requirements.Rule(ruleName, regex, isRule, OptionalLong.empty(), gpus, Optional.empty(),
                    OptionalInt.empty(), share);
        }

        private Requirements.Rule rule(String where, boolean isDefault) throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error(where, "must be an object", "write {\"match\": \"--llm qwen2.5-7b\", \"vram\": \"16G\"}");
            }
            int line = p.currentLocation().getLineNr();
            Optional<String> ruleName = Optional.empty();
            Optional<String> match = Optional.empty();
            OptionalLong vram = OptionalLong.empty();
            OptionalInt gpus = OptionalInt.empty();
            Optional<GpuShare> share = Optional.empty();
            Optional<Duration> timeout = Optional.empty();
            OptionalInt retries = OptionalInt.empty();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                JsonToken t = p.nextToken();
                if (key.equals("comment")) {
                    p.skipChildren();
                    continue;
                }
                if (!RULE_KEYS.contains(key)) {
                    throw error(where, "unknown key '" + key + "'" + didYouMean(key, RULE_KEYS),
                            "known keys: " + String.join(", ", RULE_KEYS));
                }
                if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                    throw error(where, "\"" + key + "\" must be a string or a number", "e.g. \"" + key + "\": "
                            + example(key));
                }
                String v = p.getText().strip();
                switch (key) {
                    case "name" -> ruleName = Optional.of(v);
                    case "match" -> match = Optional.of(v);
                    case "vram" -> vram = OptionalLong.of(Units.parseMib(v).orElseThrow(() ->
                            error(where, "bad vram '" + v + "'", "write MiB or a size from 1 to " + Units.MAX_MIB
                                    + " MiB, e.g. \"vram\": \"16G\", \"1.5GiB\" or 18000")));
                    case "gpus" -> {
                        String fix = "write a whole number of GPUs from 1 to " + JobsFileParser.MAX_GPUS
                                + ", or a share of one GPU between 0 and 1 such as 0.5";
                        if (GpuShare.looksDecimal(v)) {
                            // As on a line: a decimal is a share of one GPU or a mistake (1.5 GPUs cannot be placed).
                            share = Optional.of(GpuShare.parse(v).orElseThrow(() -> error(where, "bad gpus '" + v
                                    + "' (a fraction is a share of one GPU: above 0, below 1, at most " + GpuShare.MAX_DIGITS
                                    + " decimals)", fix)));
                        } else {
                            gpus = OptionalInt.of(integer(v, 1, JobsFileParser.MAX_GPUS).orElseThrow(() ->
                                    error(where, "bad gpus '" + v + "'", fix)));
                        }
                    }
                    case "timeout" -> timeout = Optional.of(Units.parseDuration(v).orElseThrow(() ->
                            error(where, "bad timeout '" + v + "'", "write seconds or a duration above 0 and at most "
                                    + Units.MAX_DURATION.toDays() + "d, e.g. \"timeout\": \"2h\", \"90m\" or 3600")));
                    case "retries" -> retries = OptionalInt.of(integer(v, 0, 1000).orElseThrow(() ->
                            error(where, "bad retries '" + v + "'", "write a whole number from 0 to 1000")));
                    default -> throw new IllegalStateException(key);
                }
            }
            if (share.isPresent() && vram.isPresent()) {
                throw error(where, "\"vram\" and \"gpus\": " + share.get() + " both say how much memory the job needs",
                        "keep one: \"gpus\": " + share.get() + " (that share of whichever GPU it gets) or \"vram\" (the same "
                                + "MiB on any GPU)", line);
            }
            if (isDefault) {
                if (match.isPresent()) {
                    throw error(where, "the default has a \"match\"", "the default applies to every command no rule "
                            + "matches; remove its \"match\", or make it a rule in \"rules\"", line);
                }
                return new Requirements.Rule(ruleName.orElse("default"), "", false, vram, gpus, timeout, retries, share);
            }
            if (match.isEmpty() || match.get().isEmpty() || match.get().equals("re:")) {
                throw error(where, "has no \"match\"", "give the command text it applies to, e.g. \"match\": "
                        + "\"--llm qwen2.5-7b\", or \"re:\" and a regular expression", line);
            }
            boolean regex = match.get().startsWith("re:");
            String pattern = regex ? match.get().substring(3) : match.get();
            if (vram.isEmpty() && gpus.isEmpty() && share.isEmpty() && timeout.isEmpty() && retries.isEmpty()) {
                throw error(where, "\"" + match.get() + "\" sets nothing", "give it vram, gpus, timeout or retries", line);
            }
            try {
                return new Requirements.Rule(ruleName.orElse(pattern), pattern, regex, vram, gpus, timeout, retries, share);
            } catch (PatternSyntaxException e) {
                throw error(where, "\"" + match.get() + "\" is not a valid regular expression (" + e.getDescription()
                        + " near index " + e.getIndex() + ")", "fix it, or drop \"re:\" to match the text literally", line);
            }
        }

        private RequirementsException error(String where, String problem, String fix) {
            return error(where, problem, fix, p.currentLocation().getLineNr());
        }

        private RequirementsException error(String where, String problem, String fix, int line) {
            return new RequirementsException(name + ":" + Math.max(1, line) + ": " + (where == null ? "" : where + ": ")
                    + problem + "; " + fix);
        }
    }

    private static String example(String key) {
        return switch (key) {
            case "vram" -> "\"16G\"";
            case "gpus", "retries" -> "2";
            case "timeout" -> "\"2h\"";
            default -> "\"...\"";
        };
    }

    /** A name from the file as a message may show it: control characters escaped, at most 80 characters. */
    private static String printable(String s) {
        return JobSpecException.printable(s, 80);
    }

    private static String didYouMean(String typed, List<String> known) {
        return DidYouMean.suggest(typed, known).map(k -> " — did you mean '" + k + "'?").orElse("");
    }

    private static OptionalInt integer(String v, int min, int max) {
        if (!v.matches("[0-9]{1,12}")) {
            return OptionalInt.empty();
        }
        BigInteger n = new BigInteger(v);
        return n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0
                ? OptionalInt.empty() : OptionalInt.of(n.intValueExact());
    }
}
