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

    /** A {@code queue} text's chunks broke the protocol's form; the connection cannot be resynchronised. */
    static final class BadChunk extends IOException {
        private static final long serialVersionUID = 1L;

        BadChunk(String message) {
            super(message);
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

    /**
     * Copies a {@code queue} text sent in chunks (after its {@code text_chunks} head) to {@code out}, each
     * chunk as it arrives, up to and without the line {@code 0} that ends it; the lines after it are
     * read by {@link #read} as before. Takes only what the protocol allows: a length line of at most
     * {@link io.gpusched.protocol.QueueTextLines#MAX_CHUNK_DIGITS} digits and its end, a length of 1 to
     * {@link io.gpusched.protocol.Answer.QueueTextChunks#MAX_CHUNK_BYTES}, a chunk that ends a line.
     *
     * @throws BadChunk when a length line or a chunk is not of that form (what came before it was copied)
     * @throws java.io.EOFException when the stream ends before the text's end
     */
    void copyChunks(java.io.OutputStream out) throws IOException {
        StringBuilder digits = new StringBuilder(io.gpusched.protocol.QueueTextLines.MAX_CHUNK_DIGITS + 1);
        while (true) {
            digits.setLength(0);
            while (true) {
                if (!fill()) {
                    throw new java.io.EOFException("the stream ended inside the text, at a chunk's length");
                }
                byte b = in.get();
                if (b == '\n') {
                    break;
                }
                digits.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
                if (digits.length() > io.gpusched.protocol.QueueTextLines.MAX_CHUNK_DIGITS) {
                    throw new BadChunk("a chunk's length line is longer than "
                            + io.gpusched.protocol.QueueTextLines.MAX_CHUNK_DIGITS + " digits: '" + digits + "...'");
                }
            }
            int n = io.gpusched.protocol.QueueTextLines.chunkBytes(digits);
            if (n < 0) {
                throw new BadChunk("a chunk's length is not 0 to "
                        + io.gpusched.protocol.Answer.QueueTextChunks.MAX_CHUNK_BYTES + " in decimal digits: '" + digits + "'");
            }
            if (n == 0) {
                return;
            }
            if (copyLast(n, out) != '\n') {
                throw new BadChunk("a chunk of " + n + " bytes does not end a line");
            }
        }
    }

    /** @return whether a byte is there to take, reading more when none is; false at end of stream */
    private boolean fill() throws IOException {
        while (!in.hasRemaining()) {
            in.clear();
            int read = channel.read(in);
            in.flip();
            if (read < 0) {
                return false;
            }
        }
        return true;
    }

    /** {@link #copy} of {@code n} (at least 1) bytes, returning the last of them. */
    private byte copyLast(long n, java.io.OutputStream out) throws IOException {
        long left = n;
        byte last = 0;
        while (left > 0) {
            if (!fill()) {
                throw new java.io.EOFException("the stream ended " + left + " bytes before a chunk's end");
            }
            int take = (int) Math.min(left, in.remaining());
            last = in.get(in.position() + take - 1);
            out.write(in.array(), in.arrayOffset() + in.position(), take);
            in.position(in.position() + take);
            left -= take;
        }
        return last;
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
