package io.gpusched.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Who may read a dashboard: the people its daemon's socket serves, each with their own token
 * ({@code gpusched dashboard} asks the socket for it), and optionally a Prometheus scraper with a
 * token of its own for {@code /metrics} alone.
 *
 * @param owner the only user served (a user's daemon, a jobs-file run: their socket serves no one
 *     else); empty for every user (a root daemon), each shown what {@code gpusched queue} shows them
 * @param metricsToken the scraper's bearer token for {@code /metrics} ({@code --metrics-token-file});
 *     empty when there is none (then {@code /metrics} takes a user's token only)
 */
public record DashboardAccess(Optional<String> owner, Optional<String> metricsToken) {
    /** The shortest scraper token accepted: 16 characters, about 80 bits as hex or base64. */
    static final int MIN_METRICS_TOKEN = 16;

    /**
     * @param user the daemon's user
     * @return a dashboard for {@code user} alone
     */
    public static DashboardAccess ownerOnly(String user) {
        return new DashboardAccess(Optional.of(user), Optional.empty());
    }

    /** @return a dashboard for every user of a root daemon */
    public static DashboardAccess everyUser() {
        return new DashboardAccess(Optional.empty(), Optional.empty());
    }

    /**
     * @param token the scraper's secret
     * @return this access, with {@code /metrics} also open to {@code Authorization: Bearer token}
     */
    public DashboardAccess withMetricsToken(String token) {
        return new DashboardAccess(owner, Optional.of(token));
    }

    /**
     * @param user a user the kernel named
     * @return whether the dashboard serves them
     */
    boolean serves(String user) {
        return owner.map(user::equals).orElse(true);
    }

    /**
     * Reads {@code --metrics-token-file}: its first line, stripped, is the token. The file holds a secret,
     * so one that other users can read (group or others' read bit) is refused.
     *
     * @param file the file
     * @return the token
     * @throws IllegalArgumentException with a one-line message naming the file and the fix
     */
    public static String readMetricsToken(Path file) {
        String token;
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            if (mode.contains(PosixFilePermission.GROUP_READ) || mode.contains(PosixFilePermission.OTHERS_READ)) {
                throw new IllegalArgumentException("--metrics-token-file " + file + " is readable by other users ("
                        + PosixFilePermissions.toString(mode) + "); chmod 600 " + file);
            }
            token = Files.readAllLines(file).stream().findFirst().orElse("").strip();
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalArgumentException("--metrics-token-file " + file + ": cannot read it (" + e.getMessage()
                    + "); give a file of yours holding the token, e.g. made by: openssl rand -hex 32 > " + file);
        }
        if (token.length() < MIN_METRICS_TOKEN) {
            throw new IllegalArgumentException("--metrics-token-file " + file + ": its first line must be a token of at least "
                    + MIN_METRICS_TOKEN + " characters, e.g. made by: openssl rand -hex 32 > " + file);
        }
        return token;
    }
}
