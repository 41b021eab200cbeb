package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A submission's fields refused in our words, on one line of bounded length: a user's value of a
 * mebibyte, or one holding a newline or a NUL, is not repeated whole to them.
 */
class SubmissionRefusalWordsTest {
    private static final String HUGE = "/x\n\u0000".repeat(100_000);

    private static String refusal(String cwd, Optional<Map<String, String>> env, Optional<String> output) {
        return assertThrows(IllegalArgumentException.class, () -> Requests.submission("true", cwd, env, output,
                Optional.empty(), OptionalInt.empty(), "alice")).getMessage();
    }

    private static void oneShortLine(String message) {
        assertTrue(message.length() < 300, message.length() + " characters");
        assertEquals(1, message.lines().count(), message);
        assertTrue(message.chars().noneMatch(c -> c < 0x20), message);
    }

    @Test
    void aCwdOrOutputHoldingANulIsRefusedInOurWords_notTheJdksWithTheWholeValue() {
        String cwd = refusal("/home/alice/\u0000x", Optional.empty(), Optional.empty());
        assertEquals("\"cwd\" must be a path without NUL characters, got /home/alice/\\x00x", cwd);
        String output = refusal("/tmp", Optional.empty(), Optional.of(HUGE));
        assertTrue(output.startsWith("\"output\" must be a path without NUL characters, got /x\\n\\x00/x"), output);
        oneShortLine(output);
    }

    @Test
    void aLongRelativeCwdAndABadEnvironmentNameAreQuotedOnOneShortLine() {
        oneShortLine(refusal("x\n".repeat(100_000), Optional.empty(), Optional.empty()));
        String env = refusal("/tmp", Optional.of(Map.of("A=\n" + "B".repeat(100_000), "v")), Optional.empty());
        assertTrue(env.startsWith("not a valid environment entry: 'A=\\nBBB"), env);
        oneShortLine(env);
    }
}
