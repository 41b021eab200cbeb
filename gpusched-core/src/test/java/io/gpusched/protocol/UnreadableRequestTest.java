package io.gpusched.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The refusal of a line that is no request: its message is the answer's, one line a user can act on
 * (PROTOCOL.md, "Requests"), whatever the line held. The lines here are what
 * {@code HostileRequestLinesPropertiesTest} (gpusched-testkit) found repeated in the message.
 */
class UnreadableRequestTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();

    @Test
    void aRefusalQuotesWhatTheLineSentOnOneBoundedLine_neitherItsLineEndsNorAllOfALongValue() {
        String[][] cases = {
            // a version that is a string with a CR, controls and a lone surrogate (found with seed -7674686429638181154)
            {"{\"op\":\"job\",\"v\":\"\\u000di \\u001af i\\ud800\"}", "unsupported_version",
                "the request says \\ri \\x1af i\\ud800; use"},
            {"{\"v\":\"" + "x".repeat(100_000) + "\",\"op\":\"hello\"}", "unsupported_version",
                "the request says " + "x".repeat(64) + "...; use"},
            {"{\"v\":1,\"op\":\"hello\\nsubmit\"}", "unknown_op", "unknown op 'hello\\nsubmit'; known:"},
            {"{\"v\":1,\"op\":{\"a\":[\"\\u2028\"]}}", "unknown_op", "unknown op '{a=[\\u2028]}'; known:"},
            {"{\"v\":1,\"op\":\"" + "y".repeat(1 << 19) + "\"}", "unknown_op", "'" + "y".repeat(64) + "...'"},
            // a character the JSON reader quotes as it is (found with the same seed)
            {"{\"v\"\u2028:1,\"op\":\"exited\",\"status\":0}", "bad_request", "Unexpected character ('\\u2028'"},
            // a token the JSON reader quotes, up to 256 characters of it: NEL and a bidi override are parts of it
            {"{\"v\":1,\"op\":tru" + "e\u0085\u202e".repeat(200) + "}", "bad_request", "Unrecognized token 'true\\x85\\u202e"},
        };
        for (String[] c : cases) {
            UnreadableRequest e = assertThrows(UnreadableRequest.class, () -> CODEC.decodeRequest(c[0]));
            String m = e.getMessage();
            assertEquals(c[1], e.reason().code(), m);
            assertTrue(m.contains(c[2]), m);
            assertTrue(m.length() <= 500, m.length() + " characters: " + m);
            assertTrue(m.chars().noneMatch(ch -> ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) || ch == 0x2028
                    || Character.getType(ch) == Character.FORMAT || Character.isSurrogate((char) ch)), m);
        }
    }

    @Test
    void aKeyGivenTwiceIsRefused_notTheLastTakenUnsaid() {
        String[][] cases = {
            {"{\"v\":2,\"v\":1,\"op\":\"hello\"}", "not a request: \"v\" given twice"},
            {"{\"v\":1,\"op\":\"cancel\",\"no\":3,\"no\":4}", "not a request: \"no\" given twice"},
            {"{\"v\":1,\"op\":\"hello\",\"x\":null,\"x\":1}", "not a request: \"x\" given twice"},
            {"{\"v\":1,\"op\":\"submit\",\"line\":\"true\",\"cwd\":\"/tmp\",\"env\":{\"PATH\":\"/a\",\"PATH\":\"/b\"}}",
                "not a request: \"PATH\" given twice"},
        };
        for (String[] c : cases) {
            UnreadableRequest e = assertThrows(UnreadableRequest.class, () -> CODEC.decodeRequest(c[0]));
            assertEquals("bad_request", e.reason().code(), e.getMessage());
            assertEquals(c[1], e.getMessage());
        }
    }
}
