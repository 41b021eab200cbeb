package io.gpusched.outcome;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Reads the end of a job's log, where an OOM message would be. Reads only; never writes or waits. */
public final class LogTail {
    private LogTail() {
    }

    /**
     * @param log the file
     * @param maxBytes how much of its end, in bytes (e.g. {@link Verdicts#OOM_TAIL_BYTES})
     * @return its last {@code maxBytes} bytes (all of it when shorter) as UTF-8; empty when it cannot be read
     */
    public static String read(Path log, int maxBytes) {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            long len = f.length();
            int n = (int) Math.min(len, maxBytes);
            byte[] buf = new byte[n];
            f.seek(len - n);
            f.readFully(buf);
            return new String(buf, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
