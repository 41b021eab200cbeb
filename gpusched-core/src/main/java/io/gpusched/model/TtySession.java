package io.gpusched.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * Where a {@code [tty]} job's terminal is: a tmux server of its own, on the socket named
 * {@code gpusched-<hash>-<N>} in tmux's per-user directory ({@code tmux -L NAME}, i.e.
 * {@code /tmp/tmux-UID/NAME}), holding one session of the same name. One server per job rather than one
 * per scheduler, because a server started by a job lives in that job's session and carries its run
 * token, so it is killed, swept and attributed with the job and never outlives it; a shared server
 * would belong to whichever job started it. The name is derived, not stored, so {@code gpusched attach}
 * finds it from the log directory alone, and in tmux's per-user directory because under a root daemon
 * the server runs as the job's owner, who must be able to reach (and create) its socket.
 *
 * @param name the tmux socket name ({@code -L}) and session name ({@code -t})
 */
public record TtySession(String name) {
    /**
     * @param logDir the scheduler's log directory (the run socket's directory)
     * @param no the job's number
     * @return the terminal of that job of that scheduler
     */
    public static TtySession of(Path logDir, int no) {
        CRC32 crc = new CRC32();
        crc.update(canonical(logDir).getBytes(StandardCharsets.UTF_8));
        return new TtySession(String.format("gpusched-%08x-%d", crc.getValue(), no));
    }

    // The daemon and a client may name the directory differently (relative, through a symlink).
    private static String canonical(Path dir) {
        try {
            return dir.toRealPath().toString();
        } catch (IOException e) {
            return dir.toAbsolutePath().normalize().toString();
        }
    }
}
