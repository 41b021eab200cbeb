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

    /** How long reading a job's output as its owner may take: the loop waits for it. */
    private static final long AS_OWNER_MILLIS = 2000;

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
                return "";
            }
            byte[] bytes = out.get(AS_OWNER_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
            return p.exitValue() == 0 ? new String(bytes, StandardCharsets.UTF_8) : "";
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
