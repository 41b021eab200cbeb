package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A connection's memory grows only with what its client sent, and shrinks once a big line is taken. */
class ConnectionTest {
    private static final int MOST = Protocol.MAX_LINE_BYTES + 64 * 1024;

    private static Connection connection() {
        return new Connection(null, "ada", 0);
    }

    private static void receive(Connection c, String text) {
        c.append(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), MOST);
    }

    @Test
    void aConnectionThatSentNothingHasNoInputBuffer() {
        assertEquals(0, connection().capacity());
    }

    @Test
    void aShortRequestTakesASmallBuffer_andItsLinesComeOutInOrder() {
        Connection c = connection();
        receive(c, "{\"op\":\"hello\"}\n{\"op\":");
        assertEquals(512, c.capacity());
        assertEquals(Optional.of("{\"op\":\"hello\"}"), c.takeLine(8192));
        assertEquals(Optional.empty(), c.takeLine(8192), "the second line has not ended yet");
        assertEquals(6, c.lineLength());
        receive(c, "\"queue\"}\n");
        assertEquals(Optional.of("{\"op\":\"queue\"}"), c.takeLine(8192));
        assertEquals(0, c.buffered());
    }

    @Test
    void aBigLineGivesItsMemoryBackOnceTaken() {
        Connection c = connection();
        String chunk = "x".repeat(64 * 1024);
        for (int i = 0; i < 16; i++) {
            receive(c, chunk);
        }
        assertEquals(Protocol.MAX_LINE_BYTES, c.lineLength());
        assertTrue(c.capacity() >= Protocol.MAX_LINE_BYTES && c.capacity() <= MOST, "capacity " + c.capacity());
        receive(c, "\nnext");
        assertEquals(Protocol.MAX_LINE_BYTES, c.takeLine(8192).orElseThrow().length());
        assertEquals(512, c.capacity(), "what is left of the next line is all it keeps");
        assertEquals(4, c.buffered());
    }
}
