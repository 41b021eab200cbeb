package io.gpusched.engine.spawn;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Optional;

/**
 * One of the small C programs built into this jar beside the engine's classes ({@code gpusched-spawnd},
 * {@code gpusched-runas}), put where it can be executed: into a directory only the scheduler's user
 * writes (the log directory's {@code runs/}), under a name carrying a hash of its bytes, mode 0700. A
 * file of that name and size already there is used as it is: the directory is the scheduler's own, so
 * nobody else could have put it there.
 */
public final class NativeBinary {
    private NativeBinary() {
    }

    /**
     * @param resource the binary's name beside this class
     * @param dir where to put it; created if missing
     * @return its path; empty when this jar has none (built without a C compiler) or it cannot be written
     */
    public static Optional<Path> extract(String resource, Path dir) {
        try (InputStream in = NativeBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] binary = in.readAllBytes();
            Path exe = dir.resolve(resource + "-" + hash(resource, binary));
            if (!Files.isExecutable(exe) || Files.size(exe) != binary.length) {
                Files.createDirectories(dir);
                Path tmp = Files.createTempFile(dir, resource, ".tmp");
                Files.write(tmp, binary);
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
                Files.move(tmp, exe, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            return Optional.of(exe);
        } catch (IOException | java.security.NoSuchAlgorithmException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /**
     * The first 12 hex digits of the binary's SHA-1: as the build recorded it beside the binary
     * ({@code native/cc.sh} writes {@code RESOURCE.sha1}), else computed. Hashing ~20 KB in a JVM that has
     * not compiled SHA-1 yet costs several milliseconds of every start; reading the recorded digest does not.
     */
    static String hash(String resource, byte[] binary) throws IOException, java.security.NoSuchAlgorithmException {
        try (InputStream in = NativeBinary.class.getResourceAsStream(resource + ".sha1")) {
            if (in != null) {
                String recorded = new String(in.readNBytes(64), java.nio.charset.StandardCharsets.US_ASCII).strip();
                if (isSha1Hex(recorded)) {
                    return recorded.substring(0, 12);
                }
            }
        }
        return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(binary), 0, 6);
    }

    /**
     * Whether {@code s} is a SHA-1 in lower-case hex: exactly 40 of {@code 0-9a-f}. What
     * {@code s.matches("[0-9a-f]{40}")} says, by hand: every start that extracts a helper asks, and a cold
     * JVM would compile a regular expression for it.
     */
    static boolean isSha1Hex(String s) {
        if (s.length() != 40) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
