package io.gpusched.testkit.sim;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How to start the simulated GPU job. Prefer {@link #command()}: the native program shipped inside
 * the testkit jar (about a millisecond to start) where it runs on this machine, else the Java
 * {@link SimJob} (a JVM start). Both take the flags {@link SimJob} documents.
 *
 * <p>The native program is used in place when the testkit is a classes directory, and otherwise
 * copied once to {@code $XDG_CACHE_HOME/gpusched} (or {@code ~/.cache/gpusched}, or a private
 * temporary directory) as {@code simjob-<content hash>}, so different testkit versions never share a
 * binary. Whether it runs is checked once per JVM. A root JVM (a root scheduler, whose jobs run as its
 * users) uses only a copy every user can run and only root can change: in place or in a cache
 * directory when the whole path is so, else in a private temporary directory of mode 0755.
 */
public final class SimJobs {
    static final String RESOURCE = "simjob";
    static final String NATIVE_PROBE_OUTPUT = "simjob native";
    /**
     * Whether this JVM runs as root: a root scheduler's jobs run as its users, so the program must be
     * where every user can run it and none can change it.
     */
    static final boolean RUNS_AS_ROOT = "root".equals(System.getProperty("user.name"));

    private SimJobs() {
    }

    /**
     * @return the command prefix that starts the simulated job: the native program if it runs
     *     here, else {@link #javaCommand()}; append the flags
     */
    public static List<String> command() {
        return nativeCommand().orElseGet(SimJobs::javaCommand);
    }

    /**
     * The command prefix as one line for a shell to split, as in {@code $GPUSCHED_SIMJOB --vram 8000}.
     * The shell splits an unquoted variable at whitespace and does not remove quotes, so a prefix
     * whose paths hold spaces cannot be expressed this way; keep the JDK and the testkit at paths
     * without spaces when using it.
     *
     * @return {@link #command()} joined with single spaces
     */
    public static String shellCommand() {
        return String.join(" ", command());
    }

    /**
     * @return the native simulated job as a one-element command, when the testkit holds one that
     *     runs on this machine; looked up once per JVM
     */
    public static Optional<List<String>> nativeCommand() {
        return NativeHolder.COMMAND;
    }

    /**
     * @return the command prefix that runs {@link SimJob} in a fresh JVM tuned for start-up: this
     *     JVM's {@code java}, C1 only, serial GC, class-data sharing, and the testkit on the class path
     */
    public static List<String> javaCommand() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-XX:-UsePerfData", "-cp", classPathOfTestkit(), SimJob.class.getName());
    }

    private static String classPathOfTestkit() {
        CodeSource source = SimJob.class.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null) {
            try {
                return Path.of(source.getLocation().toURI()).toString();
            } catch (URISyntaxException | IllegalArgumentException e) {
                // not a plain file location (e.g. nested jar): fall back to the whole class path
            }
        }
        return System.getProperty("java.class.path");
    }

    /** Lazily finds the native program on first use, so merely loading this class costs nothing. */
    private static final class NativeHolder {
        static final Optional<List<String>> COMMAND = findNative().map(p -> List.of(p.toString()));
    }

    private static Optional<Path> findNative() {
        URL url = SimJobs.class.getResource(RESOURCE);
        if (url == null) {
            return Optional.empty();
        }
        if (url.getProtocol().equals("file")) {
            try {
                Path inPlace = Path.of(url.toURI());
                if (Files.isExecutable(inPlace) && usable(inPlace) && runsHere(inPlace)) {
                    return Optional.of(inPlace);
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // fall through to extraction
            }
        }
        byte[] binary;
        try (InputStream in = url.openStream()) {
            binary = in.readAllBytes();
        } catch (IOException e) {
            return Optional.empty();
        }
        // Named once: a root JVM may try three directories.
        String name = RESOURCE + "-" + recordedHash().orElseGet(() -> hash(binary));
        for (Path dir : cacheDirectories()) {
            Optional<Path> extracted = extractTo(dir, binary, name);
            if (extracted.isPresent() && usable(extracted.get()) && runsHere(extracted.get())) {
                return extracted;
            }
        }
        Optional<Path> privateCopy = extractToPrivateTemp(binary, name);
        return privateCopy.filter(SimJobs::runsHere);
    }

    private static List<Path> cacheDirectories() {
        List<Path> dirs = new ArrayList<>();
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()) {
            dirs.add(Path.of(xdg, "gpusched"));
        }
        String home = System.getProperty("user.home");
        if (home != null && !home.isEmpty() && !home.equals("?")) {
            dirs.add(Path.of(home, ".cache", "gpusched"));
        }
        return dirs;
    }

    /**
     * Copies the binary to {@code dir/simjob-<hash>} unless an identical copy is there already.
     * Writes to a temporary name and renames, so concurrent JVMs never run a half-written file.
     *
     * @return the executable copy, or empty when the directory cannot be used
     */
    static Optional<Path> extractTo(Path dir, byte[] binary) {
        return extractTo(dir, binary, RESOURCE + "-" + hash(binary));
    }

    /** As {@link #extractTo(Path, byte[])}, under {@code name}: {@code simjob-} and the binary's hash. */
    private static Optional<Path> extractTo(Path dir, byte[] binary, String name) {
        Path target = dir.resolve(name);
        try {
            // compare contents, not just the name: the file may be damaged or planted
            if (Files.isRegularFile(target) && Files.isExecutable(target)
                    && Arrays.equals(Files.readAllBytes(target), binary)) {
                return Optional.of(target);
            }
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, RESOURCE + "-", ".tmp");
            try {
                Files.write(tmp, binary);
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            return Optional.of(target);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> extractToPrivateTemp(byte[] binary, String name) {
        try {
            // deleteOnExit runs at a normal exit only: named after this process, so the next simulation
            // removes it after an exit on OutOfMemoryError (LeftTempDirectories).
            Path dir = Files.createTempDirectory(LeftTempDirectories.prefix("gpusched-simjob-"));
            dir.toFile().deleteOnExit();
            if (RUNS_AS_ROOT) {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            Optional<Path> copy = extractTo(dir, binary, name);
            copy.ifPresent(p -> p.toFile().deleteOnExit());
            return copy;
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean usable(Path binary) {
        return !RUNS_AS_ROOT || everyoneRunsOnlyRootChanges(binary);
    }

    /**
     * Whether every user can run {@code binary} and nobody but root can replace it: it and each directory
     * above it are root's, not writable by group or others (a sticky directory such as /tmp excepted,
     * where others cannot rename root's entries), and enterable by others.
     */
    static boolean everyoneRunsOnlyRootChanges(Path binary) {
        try {
            Path p = binary.toRealPath();
            boolean file = true;
            for (; p != null; p = p.getParent(), file = false) {
                int mode = (Integer) Files.getAttribute(p, "unix:mode");
                int uid = (Integer) Files.getAttribute(p, "unix:uid");
                boolean sticky = (mode & 01000) != 0;
                if (uid != 0 || (mode & 01) == 0 || (!file && !sticky && (mode & 022) != 0) || (file && (mode & 022) != 0)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Runs {@code --probe}: catches a binary built for another OS, CPU or C library, or a noexec mount. */
    static boolean runsHere(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--probe").redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readNBytes(256);
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0 && new String(out, StandardCharsets.UTF_8).strip().equals(NATIVE_PROBE_OUTPUT);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The first 16 hex digits of the SHA-256 of the binary this jar holds, as the build recorded it beside
     * it ({@code native/cc.sh} writes {@code simjob.sha256}); empty when it did not. Hashing ~20 KB in a JVM
     * that has not compiled SHA-256 yet costs several milliseconds of every simulated run's start.
     */
    static Optional<String> recordedHash() {
        try (InputStream in = SimJobs.class.getResourceAsStream(RESOURCE + ".sha256")) {
            if (in == null) {
                return Optional.empty();
            }
            String recorded = new String(in.readNBytes(128), StandardCharsets.US_ASCII).strip();
            return recorded.matches("[0-9a-f]{64}") ? Optional.of(recorded.substring(0, 16)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return the first 16 hex digits of the SHA-256 of {@code binary} */
    static String hash(byte[] binary) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(binary);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
