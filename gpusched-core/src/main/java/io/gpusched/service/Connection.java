package io.gpusched.service;

import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One client's connection as the service's selector thread keeps it: what it sent that is not yet a
 * whole line, the answers not yet written, and what it is doing. Owned by that thread alone (other
 * threads reach it only through tasks they hand the thread, and {@link #handBack}), so nothing else here is locked.
 *
 * <p>Its memory grows only with what the client sent: no input buffer until bytes arrive, then one
 * just big enough for them (doubling, up to one line of {@link Protocol#MAX_LINE_BYTES} and one read),
 * dropped again once a big line has been taken out.
 */
final class Connection {
    /** What the connection is doing. */
    enum State {
        /** Waiting for the client's next request (the idle timeout runs). */
        IDLE,
        /** A request is being answered; nothing more is read until its answer is queued. */
        BUSY,
        /** An {@code srun} session holds it: lines go to the session, the idle timeout does not apply. */
        SESSION
    }

    private static final byte[] EMPTY = new byte[0];
    /** Smallest input buffer worth allocating: a short request fits at once. */
    private static final int FIRST_BUFFER = 512;

    final SocketChannel channel;
    /** The caller, as the kernel named them ({@code SO_PEERCRED}). */
    final String peer;
    SelectionKey key;
    State state = State.IDLE;
    /** Answers and events queued to write, in order. */
    final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);
    /**
     * The chunks of an answer still to write after {@link #out}, each rendered only when {@link #out} is
     * written (a streamed {@code queue} of 100,000 rows, or its text, is held a chunk at a time, not whole).
     */
    java.util.Iterator<ByteBuffer> rest = java.util.Collections.emptyIterator();
    /** What {@link #rest}'s answer holds until written (a text's bytes); let go when the connection closes. */
    HeldAnswer held;
    /** The client closed its side (or reading failed): nothing more comes. */
    boolean eof;
    /** Close once {@link #out} is written: the last answer of this connection is queued. */
    boolean endAfterWrite;
    boolean closed;
    /** When the connection last started waiting for the client to send a request (nanoTime). */
    long idleSince;
    /** When {@link #out} last had bytes written, or was queued into while empty (nanoTime). */
    long wroteAt;
    /**
     * The one field another thread writes: a busy connection's hand-back. The thread that completes an
     * answer and writes it whole ({@code ServiceServer.reply}) sets {@link #ANSWERED} instead of waking the
     * selector thread, which takes the connection back when it next looks at it (its next bytes, its end,
     * the sweep). Once the selector thread holds input it cannot take while busy (a whole line, the end),
     * it sets {@link #WANTED} first, and the answering thread then hands the connection back through the
     * selector thread's task queue, as every other answer. 0 otherwise.
     */
    final java.util.concurrent.atomic.AtomicInteger handBack = new java.util.concurrent.atomic.AtomicInteger();
    static final int ANSWERED = 1;
    static final int WANTED = 2;
    /** When the answer behind {@link #ANSWERED} was written (nanoTime): the connection is idle since. */
    volatile long answeredAt;
    /** A session waiting for the client's next line; null when none waits. */
    Consumer<Optional<String>> reader;

    private byte[] in = EMPTY;
    private int length;
    /** Bytes of {@link #in} before this index hold no line end. */
    private int scanned;

    Connection(SocketChannel channel, String peer, long now) {
        this.channel = channel;
        this.peer = peer;
        this.idleSince = now;
        this.wroteAt = now;
    }

    /** @return bytes received and not yet taken as lines */
    int buffered() {
        return length;
    }

    /** @return the input buffer's size in bytes: what this connection's unread input costs in memory */
    int capacity() {
        return in.length;
    }

    /** Appends bytes read, growing the buffer as little as doubling allows, up to {@code most} bytes. */
    void append(ByteBuffer data, int most) {
        int n = data.remaining();
        if (length + n > in.length) {
            int grown = Math.max(FIRST_BUFFER, Math.min(in.length * 2, most));
            byte[] bigger = new byte[Math.max(length + n, grown)];
            System.arraycopy(in, 0, bigger, 0, length);
            in = bigger;
        }
        data.get(in, length, n);
        length += n;
    }

    /** @return whether a whole line has arrived */
    boolean hasLine() {
        return lineEnd() >= 0;
    }

    /**
     * @return the bytes of the first line, without its end, so far: of the whole line when it has
     *     arrived, else of all that was received
     */
    int lineLength() {
        int end = lineEnd();
        return end >= 0 ? end : length;
    }

    private int lineEnd() {
        for (int i = scanned; i < length; i++) {
            if (in[i] == '\n') {
                return i;
            }
        }
        scanned = length;
        return -1;
    }

    /**
     * Takes the first whole line out of the buffer.
     *
     * @param keep the largest buffer kept after a line is taken; a bigger one is replaced by one just big
     *     enough for what is left, so a single big request does not keep its memory
     * @return the line without its end; empty when no whole line has arrived
     */
    Optional<String> takeLine(int keep) {
        int end = lineEnd();
        if (end < 0) {
            return Optional.empty();
        }
        String line = new String(in, 0, end, StandardCharsets.UTF_8);
        int rest = length - end - 1;
        if (in.length > keep) {
            byte[] smaller = rest == 0 ? EMPTY : new byte[Math.max(rest, FIRST_BUFFER)];
            System.arraycopy(in, end + 1, smaller, 0, rest);
            in = smaller;
        } else {
            System.arraycopy(in, end + 1, in, 0, rest);
        }
        length = rest;
        scanned = 0;
        return Optional.of(line);
    }

    /** Drops what was received, for a connection that is closing. */
    void dropInput() {
        in = EMPTY;
        length = 0;
        scanned = 0;
    }
}
