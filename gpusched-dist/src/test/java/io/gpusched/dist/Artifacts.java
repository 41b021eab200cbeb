package io.gpusched.dist;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Where the package phase left the artifacts, and a way to run a command and read what it printed. */
final class Artifacts {
    /** What a command printed (stdout and stderr, in one) and returned. */
    record Run(int code, String out) {
    }

    private Artifacts() {
    }

    static Path dir() {
        return Path.of(System.getProperty("gpusched.dist.dir", "target"));
    }

    static String version() {
        return System.getProperty("gpusched.dist.version", "0.1.0-SNAPSHOT");
    }

    static Path tarball() {
        Path t = dir().resolve("gpusched-" + version() + "-linux-x86_64.tar.gz");
        assertTrue(Files.isRegularFile(t), t + " was not built (mvn package makes it)");
        return t;
    }

    /** Runs {@code argv} in {@code cwd} with exactly {@code env}, for at most {@code seconds}. */
    static Run run(Path cwd, Map<String, String> env, long seconds, String... argv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        if (env != null) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", argv) + " still running after " + seconds + " s:\n"
                    + out.getNow("(no output yet)"));
        }
        return new Run(p.exitValue(), out.get(10, TimeUnit.SECONDS));
    }

    static Run run(String... argv) throws Exception {
        return run(Path.of("."), null, 60, argv);
    }

    /** Whether a program is on this machine's PATH. */
    static boolean installed(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    static List<String> lines(String text) {
        return text.lines().toList();
    }
}
