package io.gpusched.jobs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The values of the scheduling attributes of a block ({@code priority}, {@code gpu-ids},
 * {@code on-timeout}, {@code name}, {@code after}, {@code after-ok}, {@code after-any}), each read
 * exactly or refused with a {@link JobSpecException} naming the token; and how {@link JobSpec#toLine()}
 * writes a list of GPUs back ({@link Attribute} writes the rest).
 */
final class SchedulingSyntax {
    private static final String NAME_RULE = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
            + " (not cancel or preemptible)";

    private SchedulingSyntax() {
    }

    /** {@code -3}, {@code 0}, {@code 12}: plain digits with an optional minus, within ±{@link Scheduling#MAX_PRIORITY}. */
    static int priority(String value, String token, String source, int lineNo) {
        boolean negative = value.startsWith("-");
        OptionalInt n = parseInt(negative ? value.substring(1) : value, Scheduling.MAX_PRIORITY);
        if (n.isEmpty()) {
            throw new JobSpecException(source, lineNo, token, "bad priority", "give a whole number from -"
                    + Scheduling.MAX_PRIORITY + " to " + Scheduling.MAX_PRIORITY + "; higher runs first, 0 by default");
        }
        return negative ? -n.getAsInt() : n.getAsInt();
    }

    /**
     * Indices ({@code 0}, {@code 02} read as {@code 2}), ranges ({@code 2-3}, expanded) and UUIDs (kept as
     * written), comma-separated; each GPU once, at most {@link JobsFileParser#MAX_GPUS} after expansion
     * (counted before a range is expanded, so {@code 0-99999999} costs nothing).
     */
    static List<String> gpuIds(String value, String token, String source, int lineNo) {
        Set<String> ids = new LinkedHashSet<>();
        for (String entry : value.split(",", -1)) {
            if (Scheduling.GPU_UUID.matcher(entry).matches()) {
                addGpu(ids, entry, token, source, lineNo);
                continue;
            }
            int dash = entry.indexOf('-');
            OptionalInt low = parseInt(dash < 0 ? entry : entry.substring(0, dash), Integer.MAX_VALUE);
            OptionalInt high = dash < 0 ? low : parseInt(entry.substring(dash + 1), Integer.MAX_VALUE);
            if (low.isEmpty() || high.isEmpty()) {
                throw new JobSpecException(source, lineNo, token, "bad gpu-ids entry '" + JobSpecException.printable(entry, 80) + "' in",
                        "give GPU indices (0), index ranges (2-3) and device UUIDs (GPU-... or MIG-...), separated by commas");
            }
            if (low.getAsInt() > high.getAsInt()) {
                throw new JobSpecException(source, lineNo, token, "gpu-ids range " + entry + " runs backwards in",
                        "write the lower index first: " + high.getAsInt() + "-" + low.getAsInt());
            }
            if (ids.size() + (long) high.getAsInt() - low.getAsInt() + 1 > JobsFileParser.MAX_GPUS) {
                throw new JobSpecException(source, lineNo, token, "gpu-ids lists more than " + JobsFileParser.MAX_GPUS + " GPUs:",
                        "pin at most " + JobsFileParser.MAX_GPUS + " GPUs");
            }
            for (long i = low.getAsInt(); i <= high.getAsInt(); i++) {
                addGpu(ids, Long.toString(i), token, source, lineNo);
            }
        }
        return List.copyOf(ids);
    }

    private static void addGpu(Set<String> ids, String id, String token, String source, int lineNo) {
        if (ids.size() >= JobsFileParser.MAX_GPUS) {
            throw new JobSpecException(source, lineNo, token, "gpu-ids lists more than " + JobsFileParser.MAX_GPUS + " GPUs:",
                    "pin at most " + JobsFileParser.MAX_GPUS + " GPUs");
        }
        if (!ids.add(id)) {
            throw new JobSpecException(source, lineNo, token, "gpu-ids lists GPU " + id + " twice:", "list each GPU once");
        }
    }

    /** {@code requeue} or {@code fail}, in any case. */
    static Scheduling.OnTimeout onTimeout(String value, String token, String source, int lineNo) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "requeue" -> Scheduling.OnTimeout.REQUEUE;
            case "fail" -> Scheduling.OnTimeout.FAIL;
            default -> throw new JobSpecException(source, lineNo, token, "bad on-timeout",
                    "write on-timeout=requeue (a timeout queues the job again, at the end) or on-timeout=fail (the default)");
        };
    }

    /** A name matching {@link Scheduling#NAME}, case kept. */
    static String name(String value, String token, String source, int lineNo) {
        if (!Scheduling.NAME.matcher(value).matches()) {
            throw new JobSpecException(source, lineNo, token, "bad name", "give " + NAME_RULE);
        }
        return value;
    }

    /**
     * Adds the comma-separated names of one {@code after}-type key to those already read from the
     * block, refusing a name given twice across the keys.
     *
     * @param key the key as it will be shown, lower case: {@code after}, {@code after-ok}, {@code after-any}
     * @param into the dependencies read so far from this block, in the order written
     */
    static void after(String key, String value, String token, String source, int lineNo, List<Dep> into) {
        List<Dep> read = new ArrayList<>();
        for (String name : value.split(",", -1)) {
            if (!Scheduling.NAME.matcher(name).matches()) {
                throw new JobSpecException(source, lineNo, token, "bad " + key,
                        "give job names separated by commas, like " + key + "=prep,train; a name is " + NAME_RULE);
            }
            read.add(new Dep(key, name));
        }
        for (Dep d : read) {
            if (into.stream().anyMatch(o -> o.name().equals(d.name()))) {
                throw new JobSpecException(source, lineNo, token, "job " + d.name() + " is listed twice in the after keys:",
                        "list each job once: in after (it must end ok) or in after-any (it may end either way)");
            }
            into.add(d);
        }
    }

    /**
     * A dependency as written.
     *
     * @param key {@code after}, {@code after-ok} or {@code after-any}
     * @param name the awaited job's name
     */
    record Dep(String key, String name) {
        boolean needsSuccess() {
            return !key.equals("after-any");
        }

        /** @return the token an error about this dependency names, e.g. {@code after=prep} */
        String token() {
            return key + "=" + name;
        }

        Scheduling.Dependency toDependency() {
            return new Scheduling.Dependency(name, needsSuccess());
        }
    }

    /** Runs of three or more consecutive ascending indices as ranges ({@code 0-7}), which parse back to the same list. */
    static String gpuList(List<String> ids) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < ids.size()) {
            int j = i;
            while (j + 1 < ids.size() && Scheduling.isGpuIndex(ids.get(j)) && Scheduling.isGpuIndex(ids.get(j + 1))
                    && Long.parseLong(ids.get(j + 1)) == Long.parseLong(ids.get(j)) + 1) {
                j++;
            }
            if (j - i >= 2) {
                out.add(ids.get(i) + "-" + ids.get(j));
            } else {
                for (int k = i; k <= j; k++) {
                    out.add(ids.get(k));
                }
            }
            i = j + 1;
        }
        return String.join(",", out);
    }

    /** Plain ASCII digits (leading zeros allowed) in [0, max]; anything longer than int range is out at once. */
    static OptionalInt parseInt(String value, int max) {
        int n = value.length();
        int i = 0;
        while (i < n - 1 && value.charAt(i) == '0') {
            i++;
        }
        if (n == 0 || n - i > 10) {
            return OptionalInt.empty();
        }
        long v = 0;
        for (; i < n; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return OptionalInt.empty();
            }
            v = v * 10 + (c - '0');
        }
        return v > max ? OptionalInt.empty() : OptionalInt.of((int) v);
    }

    /** The value of a {@code name=} token in a block, if a bad line still shows one, so its dependents are not also told it is missing. */
    static Optional<String> nameIn(String raw) {
        String line = raw.strip();
        if (!line.startsWith("[")) {
            return Optional.empty();
        }
        Optional<AttributeBlock> block;
        try {
            block = AttributeBlock.read(line, "", 1);
        } catch (JobSpecException e) {
            return Optional.empty(); // a quote left open: no block to read a name from
        }
        return block.stream().flatMap(b -> b.tokens().stream())
                .filter(t -> t.name().equalsIgnoreCase("name") && t.value().isPresent()
                        && Scheduling.NAME.matcher(t.value().get()).matches())
                .map(t -> t.value().get()).findFirst();
    }
}
