package io.gpusched.service;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Lines of UTF-8 over a socket channel, each at most {@link Protocol#MAX_LINE_BYTES}. */
final class LineChannel implements AutoCloseable {
    /** A line longer than the limit arrived; the connection cannot be resynchronised. */
    static final class TooLong extends IOException {
        private static final long serialVersionUID = 1L;

        TooLong() {
            super("request longer than " + Protocol.MAX_LINE_BYTES + " bytes");
        }
    }

    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineChannel(SocketChannel channel) {
        this.channel = channel;
        in.flip();
    }

    /** @return the next line without its end, or empty at end of stream */
    Optional<String> read() throws IOException {
        line.reset();
        while (true) {
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == '\n') {
                    return Optional.of(line.toString(StandardCharsets.UTF_8));
                }
                if (line.size() >= Protocol.MAX_LINE_BYTES) {
                    throw new TooLong();
                }
                line.write(b);
            }
            in.clear();
            int n = channel.read(in);
            in.flip();
            if (n < 0) {
                return Optional.empty();
            }
        }
    }

    void write(String text) throws IOException {
        ByteBuffer out = ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
