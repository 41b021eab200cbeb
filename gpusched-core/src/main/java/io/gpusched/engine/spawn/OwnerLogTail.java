package io.gpusched.engine.spawn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads the end of a log another user owns, as that user, through gpusched-runas: the engine's part of
 * reading a log tail (it starts a process). A log gpusched may open itself is read by
 * {@link io.gpusched.outcome.LogTail}.
 */
public final class OwnerLogTail {
    private OwnerLogTail() {
    }

    /**
     * How long reading a job's output as its owner may take: the reading thread waits for it (never the
     * scheduler's loop, which settles the job once the read ends; {@code Outcomes}).
     */
    public static final long AS_OWNER_MILLIS = 2000;

    /**
     * The end of a log that another user owns, read as that user by {@code gpusched-runas --tail} (never
     * through a symbolic link, never a FIFO, never a file of anyone else's), so root opens no path a user
     * chose.
     *
     * @param runas the gpusched-runas binary
     * @param user whose file it is
     * @param log the file
     * @param maxBytes how much of its end
     * @return its last bytes; empty when it cannot be read so within {@link #AS_OWNER_MILLIS}
     */
    public static String readAs(Path runas, String user, Path log, int maxBytes) {
        return readWithin(runas, user, log, maxBytes).orElse("");
    }

    /**
     * {@link #readAs}, telling a read that did not end in time apart: the caller waits for it, and its
     * owner can make it wait (a FUSE file of theirs that never answers; or, once gpusched-runas has
     * dropped to them, a SIGSTOP of theirs, which is theirs to send).
     *
     * @return its last bytes (empty text when it cannot be read); empty when it was not read within
     *     {@link #AS_OWNER_MILLIS} (the process is then killed)
     */
    public static java.util.Optional<String> readWithin(Path runas, String user, Path log, int maxBytes) {
        try {
            Process p = new ProcessBuilder(runas.toString(), "--tail", user, log.toString(), Integer.toString(maxBytes))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            java.util.concurrent.CompletableFuture<byte[]> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getInputStream().readNBytes(maxBytes);
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!p.waitFor(AS_OWNER_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return java.util.Optional.empty();
            }
            byte[] bytes = out.get(AS_OWNER_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
            return java.util.Optional.of(p.exitValue() == 0 ? new String(bytes, StandardCharsets.UTF_8) : "");
        } catch (java.util.concurrent.TimeoutException e) {
            return java.util.Optional.empty();
        } catch (IOException | java.util.concurrent.ExecutionException e) {
            return java.util.Optional.of("");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.Optional.of("");
        }
    }
}
