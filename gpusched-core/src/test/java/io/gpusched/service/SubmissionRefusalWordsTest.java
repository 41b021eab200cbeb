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
    void anUnpairedSurrogateInTheEnvironmentOrTheRequestIdIsRefused_forTheJournalWouldKeepItAsAQuestionMark()
            throws java.io.IOException {
        // What was lost before: the value the job got at once, and the one it got after a restart, differed.
        java.nio.file.Path journal = java.nio.file.Files.createTempDirectory("surrogate").resolve("journal.jsonl");
        try (io.gpusched.journal.Journal j = io.gpusched.journal.Journal.open(journal, false)) {
            j.append(java.util.List.of(new io.gpusched.journal.JournalEvent.Submitted("s1", 1, "true",
                    java.util.OptionalLong.empty(), 1, java.util.OptionalLong.empty(), 0, "api", "alice", "/tmp", 0L,
                    Optional.of(Map.of("A", "x\ud800y")), Optional.empty())));
        }
        try (io.gpusched.journal.Journal j = io.gpusched.journal.Journal.open(journal, false)) {
            assertEquals(Map.of("A", "x?y"), j.state().submission("s1").orElseThrow().env().orElseThrow());
        }

        String value = refusal("/tmp", Optional.of(Map.of("A", "x\ud800y")), Optional.empty());
        assertEquals("environment entry 'A' must be valid Unicode: it holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF"
                + " escape alone)", value);
        oneShortLine(refusal("/tmp", Optional.of(Map.of("B\udc00", "v")), Optional.empty()));
        String id = assertThrows(IllegalArgumentException.class, () -> Requests.submission("true", "/tmp", Optional.empty(),
                Optional.empty(), Optional.of("retry-\udbff"), OptionalInt.empty(), "alice")).getMessage();
        assertEquals("a request id must be valid Unicode: it holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape"
                + " alone)", id);
        // A pair is one character, and passes.
        Requests.submission("true", "/tmp", Optional.of(Map.of("A", "\ud83d\ude00")), Optional.empty(),
                Optional.of("\ud83d\ude00"), OptionalInt.empty(), "alice");
    }

    @Test
    void aLongRelativeCwdAndABadEnvironmentNameAreQuotedOnOneShortLine() {
        oneShortLine(refusal("x\n".repeat(100_000), Optional.empty(), Optional.empty()));
        String env = refusal("/tmp", Optional.of(Map.of("A=\n" + "B".repeat(100_000), "v")), Optional.empty());
        assertTrue(env.startsWith("not a valid environment entry: 'A=\\nBBB"), env);
        oneShortLine(env);
    }
}
