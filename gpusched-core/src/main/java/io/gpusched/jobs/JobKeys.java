package io.gpusched.jobs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Identity keys, compatible with the original tool's journals: the first 12 hex digits of SHA-1 of
 * the command's UTF-8 bytes, {@code #}, and the occurrence number among identical commands.
 */
public final class JobKeys {
    private JobKeys() {
    }

    /**
     * @param command the trimmed command text (after the attribute block)
     * @param occurrence 0-based occurrence among identical commands in the file
     * @return the key, e.g. {@code e855ec027199#0}
     */
    public static String key(String command, int occurrence) {
        return hash(command) + "#" + occurrence;
    }

    /**
     * @param command the trimmed command text
     * @return 12 lowercase hex digits of its SHA-1
     */
    public static String hash(String command) {
        byte[] digest = SHA1.get().digest(command.getBytes(StandardCharsets.UTF_8));
        return HEX.formatHex(digest, 0, 6);
    }

    /**
     * One digest per thread, reset by each {@code digest()}: looking the algorithm up for every line was
     * a third of the hashing's CPU in a profile of reading a jobs file (issue #27).
     */
    private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime provides SHA-1", e);
        }
    });
    private static final HexFormat HEX = HexFormat.of();

    /** Counts occurrences of identical commands while a file is read top to bottom. */
    static final class Occurrences {
        private final Map<String, Integer> seen = new HashMap<>();

        int next(String command) {
            return seen.merge(command, 1, Integer::sum) - 1;
        }

        /** @return an independent counter at the same point, for a parse that may fail half-way */
        Occurrences copy() {
            Occurrences c = new Occurrences();
            c.seen.putAll(seen);
            return c;
        }
    }
}
