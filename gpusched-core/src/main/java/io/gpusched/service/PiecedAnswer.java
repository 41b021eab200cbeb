package io.gpusched.service;

import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * An answer written as bytes a piece at a time, each rendered only when its connection's socket has
 * taken the pieces before it (a {@code queue} text: {@link QueueAnswer.TextAnswer},
 * {@link QueueAnswer.ChunkedText}), rather than as its lines.
 */
interface PiecedAnswer {
    /**
     * @return the answer's bytes, its head line first (taken off the selector thread), then each piece
     *     rendered when asked for; a piece's buffer is the writer's until written. An iterator whose
     *     {@code next} throws cannot go on: its connection is closed
     */
    Iterator<ByteBuffer> chunks();
}
