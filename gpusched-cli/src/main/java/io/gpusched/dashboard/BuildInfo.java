package io.gpusched.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Which gpusched this is, for {@code gpusched_build_info}: the version from the jar's manifest and the
 * git commit the build recorded in the resource {@code io/gpusched/dashboard/build-revision}.
 *
 * @param version e.g. {@code 0.1.0-SNAPSHOT}; {@code dev} when run from classes outside a jar
 * @param revision the full commit hash the jar was built from; {@code unknown} when built outside a git
 *     checkout (a source tarball) or run from an IDE that skipped the build's step
 */
public record BuildInfo(String version, String revision) {
    /** The resource the cli module's build writes (see its pom.xml). */
    static final String REVISION_RESOURCE = "build-revision";
    /** The build's date, written by the same step. */
    static final String DATE_RESOURCE = "build-date";

    /**
     * Checks for null.
     *
     * @param version see {@link #version()}
     * @param revision see {@link #revision()}
     */
    public BuildInfo {
        java.util.Objects.requireNonNull(version, "version");
        java.util.Objects.requireNonNull(revision, "revision");
    }

    /** @return this jar's version and revision; never throws */
    public static BuildInfo current() {
        String v = BuildInfo.class.getPackage().getImplementationVersion();
        return new BuildInfo(v == null ? "dev" : v, builtRevision());
    }

    /**
     * @return when the jar was built, in UTC, e.g. {@code 2026-11-26T01:40:00Z}, as its build wrote it in the
     *     resource {@code io/gpusched/dashboard/build-date}; {@code unknown} without it; never throws
     */
    public static String buildDate() {
        String d = resource(DATE_RESOURCE);
        return isDate(d) ? d : "unknown";
    }

    private static String builtRevision() {
        String r = resource(REVISION_RESOURCE);
        return isRevision(r) ? r : "unknown";
    }

    // The two checks below are hand-written, not regular expressions: compiling one links method handles
    // (the regex package's lambdas), which was a third of --version's start in a cold JVM (issue #27).

    /** @return whether {@code d} is as {@code [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z} */
    static boolean isDate(String d) {
        if (d.length() != 20) {
            return false;
        }
        for (int i = 0; i < 20; i++) {
            char c = d.charAt(i);
            boolean ok = switch (i) {
                case 4, 7 -> c == '-';
                case 10 -> c == 'T';
                case 19 -> c == 'Z';
                default -> (c >= '0' && c <= '9') || (i > 10 && c == ':');
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** @return whether {@code r} is as {@code [0-9a-f]{7,64}} */
    static boolean isRevision(String r) {
        if (r.length() < 7 || r.length() > 64) {
            return false;
        }
        for (int i = 0; i < r.length(); i++) {
            char c = r.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** A resource beside this class, its first 200 bytes stripped; "" when missing or unreadable. */
    private static String resource(String name) {
        try (InputStream in = BuildInfo.class.getResourceAsStream(name)) {
            return in == null ? "" : new String(in.readNBytes(200), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
