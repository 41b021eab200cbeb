package io.gpusched.engine;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Reads the end of a job's log, where an OOM message would be. */
final class LogTail {
    private LogTail() {
    }

    static String read(Path log, int maxBytes) {
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
