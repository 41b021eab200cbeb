package io.gpusched.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lines {@code gpusched queue} writes and reads without the codec ({@link QueueTextLines}, issue #27)
 * are the codec's, byte for byte; any other answer line is left to the codec.
 */
class QueueTextLinesTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();

    private static String codecLine(Request.Text t) {
        return CODEC.encode(new Request.Queue(true, Optional.of(t)));
    }

    @Test
    void everyQueueTextRequest_isTheCodecsLine() {
        List<Request.Text> texts = new ArrayList<>(List.of(
                new Request.Text(false, Optional.empty(), OptionalInt.empty(), false, Optional.empty(), false),
                new Request.Text(true, Optional.of("%i %u %t %.M %30c %r"), OptionalInt.of(100), true, Optional.of("ada"), true),
                new Request.Text(true, Optional.empty(), OptionalInt.of(1), false, Optional.empty(), true),
                new Request.Text(false, Optional.empty(), OptionalInt.empty(), true, Optional.of("bob"), false),
                new Request.Text(true, Optional.of("job,\"user\\\",state\t\n\r\b\f\u0001\u001f\u007f é ✓ /"),
                        OptionalInt.of(99_999), false, Optional.of("x\"y\\z\u0000"), false),
                new Request.Text(false, Optional.empty(), OptionalInt.empty(), false, Optional.empty(), false, true),
                new Request.Text(true, Optional.of("%i %c"), OptionalInt.of(80), true, Optional.of("ada"), true, true)));
        // Random texts of every character below the surrogates: control characters, quotes, backslashes, UTF-8.
        Random random = new Random(27);
        for (int i = 0; i < 500; i++) {
            texts.add(new Request.Text(true, Optional.of(randomText(random, 1 + random.nextInt(40))),
                    random.nextBoolean() ? OptionalInt.of(1 + random.nextInt(500)) : OptionalInt.empty(), random.nextBoolean(),
                    random.nextBoolean() ? Optional.of(randomText(random, 1 + random.nextInt(20))) : Optional.empty(),
                    random.nextBoolean(), random.nextBoolean()));
        }
        for (Request.Text t : texts) {
            assertEquals(Optional.of(codecLine(t)), QueueTextLines.request(t), t.toString());
            assertEquals(new Request.Queue(true, Optional.of(t)),
                    CODEC.decodeRequest(QueueTextLines.request(t).orElseThrow()), "the daemon reads it back: " + t);
        }
    }

    @Test
    void theChunksHead_isTheCodecsLine_andNoOtherLineIsTakenForIt() {
        String head = CODEC.encode(new Answer.QueueTextChunks());
        assertEquals("{\"v\":1,\"ok\":true,\"text_chunks\":true}", head);
        assertTrue(QueueTextLines.textChunks(head));
        assertEquals(new Answer.QueueTextChunks(), CODEC.decode(head, ProtocolCodec.Expect.QUEUE_TEXT));
        for (String other : List.of("{\"v\":1,\"ok\":true,\"text_chunks\":false}", "{\"v\":1,\"ok\":true,\"text_bytes\":5}",
                "{\"v\":1,\"ok\":true,\"text_chunks\":true,\"more\":1}", head + " ", "")) {
            assertTrue(!QueueTextLines.textChunks(other), other);
        }
    }

    @Test
    void aChunksLength_isOneTo1MiBInPlainDecimal_zeroEndingTheText() {
        assertEquals(0, QueueTextLines.chunkBytes("0"));
        assertEquals(1, QueueTextLines.chunkBytes("1"));
        assertEquals(65_536, QueueTextLines.chunkBytes("65536"));
        assertEquals(1_048_576, QueueTextLines.chunkBytes("1048576"));
        for (String bad : List.of("", "1048577", "9999999", "10000000", "00", "01", "+5", "-1", " 5", "5 ", "5\r", "1e3", "٣",
                "12345678901")) {
            assertEquals(-1, QueueTextLines.chunkBytes(bad), bad);
        }
    }

    private static String randomText(Random random, int length) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(4);
            b.append((char) switch (pick) {
                case 0 -> random.nextInt(0x20);
                case 1 -> "\"\\/%".charAt(random.nextInt(4));
                case 2 -> 0x20 + random.nextInt(0x60);
                default -> 0x80 + random.nextInt(0xD800 - 0x80);
            });
        }
        return b.toString();
    }

    @Test
    void aStringWithASurrogate_isLeftToTheCodec() {
        assertEquals(Optional.empty(), QueueTextLines.request(new Request.Text(true, Optional.of("%i \uD83D\uDE00"),
                OptionalInt.empty(), false, Optional.empty(), false)));
        assertEquals(Optional.empty(), QueueTextLines.request(new Request.Text(false, Optional.empty(), OptionalInt.empty(),
                false, Optional.of("a\uDC00"), false)));
    }

    @Test
    void theTextsHead_asTheCodecWritesIt_isRead() {
        for (long n : new long[] {0, 1, 148, 16L << 20, 999_999_999_999_999_999L}) {
            assertEquals(OptionalLong.of(n), QueueTextLines.textBytes(CODEC.encode(new Answer.QueueText(n))));
        }
    }

    @Test
    void everyOtherAnswer_isLeftToTheCodec() {
        for (String line : List.of(
                "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"bad_request\",\"message\":\"\\\"width\\\" is 1 to 99999\"}}",
                "{\"v\":1,\"ok\":true,\"snapshot\":{},\"rows\":{},\"lines\":0}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":12,\"more\":1}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":-1}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":012}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":1.5}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":}",
                "{\"v\":1,\"ok\":true,\"text_bytes\":9999999999999999999}",
                "{\"v\":2,\"ok\":true,\"text_bytes\":12}",
                "")) {
            assertEquals(OptionalLong.empty(), QueueTextLines.textBytes(line), line);
            assertEquals(Optional.empty(), QueueTextLines.helloUser(line), line);
        }
    }

    @Test
    void helloAsTheCodecWritesIt_namesTheUser_unlessTheNameNeedsAnEscape() {
        assertEquals(QueueTextLines.HELLO, CODEC.encode(new Request.Hello()));
        for (String user : List.of("ada", "root", "jean-luc.picard_2", "émile")) {
            assertEquals(Optional.of(user), QueueTextLines.helloUser(CODEC.encode(new Answer.Hello("gpusched", user))));
        }
        for (String user : List.of("a\"b", "a\\b", "tab\there", "")) {
            assertEquals(Optional.empty(), QueueTextLines.helloUser(CODEC.encode(new Answer.Hello("gpusched", user))), user);
        }
        assertEquals(Optional.empty(), QueueTextLines.helloUser(CODEC.encode(new Answer.Hello("other", "ada"))));
        assertTrue(QueueTextLines.helloUser("{\"v\":1,\"ok\":false,\"error\":{\"code\":\"forbidden\",\"message\":\"x\"}}")
                .isEmpty());
    }
}
