package io.gpusched.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The .deb the package phase built, read with dpkg-deb: its files, their owners and modes, its control fields. */
class DebPackageTest {
    static Path deb;
    /** Each path in the package ({@code ./usr/bin/gpusched}) with its mode and owner ({@code -rwxr-xr-x root/root}). */
    static Map<String, String> contents = new TreeMap<>();

    @BeforeAll
    static void readThePackage() throws Exception {
        Assumptions.assumeTrue(Artifacts.installed("dpkg-deb"),
                "skipped: dpkg-deb is not installed (Debian's dpkg package); the .deb is built only where it is");
        deb = Artifacts.dir().resolve("gpusched_" + debVersion() + "_amd64.deb");
        assertTrue(Files.isRegularFile(deb), deb + " was not built (mvn package makes it)");
        Artifacts.Run c = Artifacts.run("dpkg-deb", "-c", deb.toString());
        assertEquals(0, c.code(), c.out());
        for (String line : Artifacts.lines(c.out())) {
            String[] f = line.split("\\s+", 6);
            contents.put(f[5].replaceFirst(" -> .*", ""), f[0] + " " + f[1]);
        }
    }

    /** 0.1.0-SNAPSHOT as Debian orders it: before 0.1.0. */
    static String debVersion() {
        return Artifacts.version().replaceFirst("-SNAPSHOT$", "~snapshot").replace('-', '~');
    }

    private static String field(String name) throws Exception {
        Artifacts.Run f = Artifacts.run("dpkg-deb", "-f", deb.toString(), name);
        assertEquals(0, f.code(), f.out());
        return f.out().strip();
    }

    @Test
    void itInstallsTheLauncherTheJarTheUnitsTheManPageAndTheCompletions() {
        assertEquals("-rwxr-xr-x root/root", contents.get("./usr/bin/gpusched"), contents.toString());
        assertEquals("-rwxr-xr-x root/root", contents.get("./usr/lib/gpusched/gpusched-queue"), "queue's native client");
        for (String f : List.of("./usr/lib/gpusched/gpusched.jar", "./lib/systemd/system/gpusched.service",
                "./usr/lib/systemd/user/gpusched.service", "./usr/share/man/man1/gpusched.1.gz",
                "./usr/share/bash-completion/completions/gpusched", "./usr/share/zsh/vendor-completions/_gpusched",
                "./usr/share/fish/vendor_completions.d/gpusched.fish",
                "./etc/gpusched/gpusched.conf", "./usr/share/doc/gpusched/copyright")) {
            assertEquals("-rw-r--r-- root/root", contents.get(f), f + " in " + contents.keySet());
        }
    }

    @Test
    void everyFileBelongsToRoot() {
        contents.forEach((path, modeOwner) -> assertTrue(modeOwner.endsWith(" root/root"), path + ": " + modeOwner));
    }

    @Test
    void itDependsOnAJava17RuntimeFromDebianAndOnTheGlibcItsHelpersNeed() throws Exception {
        assertEquals("gpusched", field("Package"));
        assertEquals(debVersion(), field("Version"));
        assertEquals("amd64", field("Architecture"));
        String depends = field("Depends");
        assertTrue(depends.contains("default-jre-headless (>= 2:1.17) | java17-runtime-headless"), depends);
        assertTrue(depends.matches(".*libc6 \\(>= 2\\.[0-9]+\\).*"), depends);
        assertTrue(Integer.parseInt(field("Installed-Size")) > 1000, "in KiB, the jar alone is over 3 MB");
    }

    @Test
    void theConfigurationFileIsAConffileSoAnUpgradeKeepsTheAdminsEdits() throws Exception {
        Artifacts.Run conffiles = Artifacts.run("dpkg-deb", "-I", deb.toString(), "conffiles");
        assertEquals(List.of("/etc/gpusched/gpusched.conf"), Artifacts.lines(conffiles.out()), conffiles.out());
    }

    @Test
    void theSnapshotVersionSortsBeforeTheRelease() throws Exception {
        Assumptions.assumeTrue(Artifacts.installed("dpkg"), "skipped: dpkg is not installed");
        String release = Artifacts.version().replaceFirst("-SNAPSHOT$", "");
        assertEquals(0, Artifacts.run("dpkg", "--compare-versions", debVersion(), "lt", release).code());
        assertEquals(0, Artifacts.run("dpkg", "--validate-version", debVersion()).code());
    }

    @Test
    void theMaintainerScriptsAreShellThatParses() throws Exception {
        Path tmp = Files.createTempDirectory("gs-pk-deb");
        try {
            assertEquals(0, Artifacts.run("dpkg-deb", "-e", deb.toString(), tmp.resolve("DEBIAN").toString()).code());
            for (String s : List.of("postinst", "prerm", "postrm")) {
                Path script = tmp.resolve("DEBIAN").resolve(s);
                assertTrue(Files.isExecutable(script), s);
                Artifacts.Run n = Artifacts.run("sh", "-n", script.toString());
                assertEquals(0, n.code(), s + ": " + n.out());
            }
        } finally {
            Artifacts.run("rm", "-rf", tmp.toString());
        }
    }
}
