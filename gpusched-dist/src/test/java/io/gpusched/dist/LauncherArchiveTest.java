package io.gpusched.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's launcher, {@code bin/gpusched}, and its start-up archives (issues #18, #27): on Java
 * 17 a class-data archive, on Java 25 and later an ahead-of-time cache, each trained on first use and
 * then actually mapped: the JVM is told to refuse to start without it ({@code -Xshare:on},
 * {@code -XX:AOTMode=on}), so an archive it silently ignored would fail here. Run on a copy of the
 * launcher beside the built jar, with no sources (so it builds nothing).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LauncherArchiveTest {
    @TempDir
    Path dir;

    private Path install() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.copy(Path.of("..", "bin", "gpusched"), bin.resolve("gpusched"), StandardCopyOption.COPY_ATTRIBUTES);
        Path target = Files.createDirectories(dir.resolve("gpusched-cli").resolve("target"));
        Files.copy(Path.of("..", "gpusched-cli", "target", "gpusched.jar"), target.resolve("gpusched.jar"));
        return bin.resolve("gpusched");
    }

    /** The output is {@code --version}'s one line (version, revision, build date, runtime) and nothing else. */
    private static void assertOnlyTheVersionLine(String out, String why) {
        String line = "gpusched " + java.util.regex.Pattern.quote(Artifacts.version())
                + " \\(revision (?:[0-9a-f]{40}|unknown), built \\S+; Java [^\\n]+\\)";
        org.junit.jupiter.api.Assertions.assertTrue(out.strip().matches(line), why + ": " + out);
    }

    private Artifacts.Run version(Path launcher, Optional<Path> javaBin, String javaOpts) throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        javaBin.ifPresent(b -> env.put("PATH", b + ":" + System.getenv("PATH")));
        env.remove("GPUSCHED_NO_CDS");
        env.put("GPUSCHED_JAVA_OPTS", javaOpts);
        return Artifacts.run(dir, env, 120, launcher.toString(), "--version");
    }

    @Test
    void onTheDefaultJavaAClassDataArchiveIsTrainedOnce_andMapped() throws Exception {
        Path launcher = install();
        Artifacts.Run first = version(launcher, Optional.empty(), "");
        assertEquals(0, first.code(), first.out());
        assertTrue(first.out().startsWith("gpusched "), first.out());
        Path cds = dir.resolve("gpusched-cli/target/cds");
        String feature = Files.readString(cds.resolve("java")).strip().replaceAll(".* ", "");
        assumeTrue(Integer.parseInt(feature) < 25, "the default java is " + feature + ": its cache is the other test's");
        assertTrue(Files.isRegularFile(cds.resolve("client.jsa")), "trained on first use");
        Path log = dir.resolve("cds.log");
        Artifacts.Run mapped = version(launcher, Optional.empty(), "-Xshare:on -Xlog:cds=info:file=" + log);
        assertEquals(0, mapped.code(), "the JVM refuses -Xshare:on when it cannot map the archive: " + mapped.out());
        assertOnlyTheVersionLine(mapped.out(), "nothing but the version is printed");
        assertTrue(Files.readString(log).contains("Opened archive " + cds.resolve("client.jsa").toRealPath()),
                Files.readString(log));
    }

    @Test
    void onJava25AnAheadOfTimeCacheIsTrainedOnce_andMapped_withoutWarnings() throws Exception {
        Optional<Path> java25;
        try (Stream<Path> jvms = Files.list(Path.of("/usr/lib/jvm"))) {
            java25 = jvms.filter(p -> p.getFileName().toString().matches(".*-(2[5-9]|[3-9][0-9])([.-].*)?"))
                    .map(p -> p.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("java")))
                    .max(Comparator.naturalOrder());
        } catch (java.io.IOException e) {
            java25 = Optional.empty();
        }
        assumeTrue(java25.isPresent(), "no Java 25+ runtime in /usr/lib/jvm");
        Path launcher = install();
        Artifacts.Run first = version(launcher, java25, "");
        assertEquals(0, first.code(), first.out());
        Path cds = dir.resolve("gpusched-cli/target/cds");
        String feature = Files.readString(cds.resolve("java")).strip().replaceAll(".* ", "");
        assertTrue(Files.isRegularFile(cds.resolve("client-" + feature + ".aot")), "trained on first use");
        assertFalse(Files.exists(cds.resolve("client.jsa")), "no class-data archive beside it");
        Path log = dir.resolve("aot.log");
        Artifacts.Run mapped = version(launcher, java25, "-XX:AOTMode=on -Xlog:aot=info:file=" + log);
        assertEquals(0, mapped.code(), "the JVM refuses AOTMode=on when it cannot map the cache: " + mapped.out());
        assertTrue(Files.readString(log).contains("Opened AOT cache " + cds.resolve("client-" + feature + ".aot").toRealPath()),
                Files.readString(log));
        assertOnlyTheVersionLine(mapped.out(), "nothing but the version: no VFORK deprecation, no -Xshare refusal");
    }
}
