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
            // Scanned a buffer at a time, not a byte at a time: a 20 MB queue answer took 0.6 s here.
            int start = in.position();
            int end = in.limit();
            int nl = start;
            while (nl < end && in.get(nl) != '\n') {
                nl++;
            }
            int take = nl - start;
            if (line.size() + take > Protocol.MAX_LINE_BYTES) {
                throw new TooLong();
            }
            line.write(in.array(), in.arrayOffset() + start, take);
            if (nl < end) {
                in.position(nl + 1);
                return Optional.of(line.toString(StandardCharsets.UTF_8));
            }
            in.position(end);
            in.clear();
            int n = channel.read(in);
            in.flip();
            if (n < 0) {
                return Optional.empty();
            }
        }
    }

    /**
     * Copies the next {@code n} bytes as they are (what a {@code queue} answer's text head announces),
     * those already read first; the lines after them are read by {@link #read} as before.
     *
     * @throws java.io.EOFException when the stream ends before {@code n} bytes
     */
    void copy(long n, java.io.OutputStream out) throws IOException {
        long left = n;
        while (left > 0) {
            if (!in.hasRemaining()) {
                in.clear();
                int read = channel.read(in);
                in.flip();
                if (read < 0) {
                    throw new java.io.EOFException("the stream ended " + left + " bytes before the text's end");
                }
                continue;
            }
            int take = (int) Math.min(left, in.remaining());
            out.write(in.array(), in.arrayOffset() + in.position(), take);
            in.position(in.position() + take);
            left -= take;
        }
    }

    void write(String text) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(text.concat("\n").getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
