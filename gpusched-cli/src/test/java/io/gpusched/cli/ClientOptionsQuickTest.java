package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code gpusched queue}'s quick reading of its command line ({@link ClientOptions#quickQueue}, issue
 * #27) gives what picocli's parser gives for every line it takes, and leaves every other line to it.
 */
class ClientOptionsQuickTest {
    private static final List<List<String>> TAKEN = List.of(
            List.of(),
            List.of("--json"),
            List.of("--all", "--json"),
            List.of("--socket", "/run/x.sock"),
            List.of("--socket=/run/x.sock", "--all"),
            List.of("--log-dir", "logs"),
            List.of("--log-dir", "logs", "--socket", "/s.sock"),
            List.of("--user", "me", "--all"),
            List.of("--format", "%i %u %t %.M %30c %r", "--socket", "s"),
            List.of("--format=job,state,command:20,reason:.6"),
            List.of("--json", "--json", "--all"));

    private static final List<List<String>> LEFT = List.of(
            List.of("--help"),
            List.of("-h"),
            List.of("--usr", "ada"),
            List.of("--user"),
            List.of("--user", "--all"),
            List.of("--user="),
            List.of("--json=true"),
            List.of("extra"),
            List.of("--", "x"),
            List.of("--socket", "-weird"),
            List.of("--user=ada", "--user", "bob"),
            List.of("--format", "%i", "--format", "%c %r"),
            List.of("--log-dir", "a", "--log-dir", "a"));

    @Test
    void everyLineItTakes_readsAsPicocliReadsIt() {
        for (List<String> args : TAKEN) {
            assertTrue(ClientOptions.quickQueue("queue", args).isPresent(), "taken: " + args);
            assertEquals(ClientOptions.parseWithSpec("queue", args), ClientOptions.parse("queue", args), args.toString());
        }
    }

    @Test
    void everyOtherLine_isLeftToPicocli_withItsAnswerOrItsError() {
        for (List<String> args : LEFT) {
            assertTrue(ClientOptions.quickQueue("queue", args).isEmpty(), "left to picocli: " + args);
        }
        assertTrue(ClientOptions.parse("queue", List.of("--help")).help());
        UsageException typo = assertThrows(UsageException.class, () -> ClientOptions.parse("queue", List.of("--usr", "ada")));
        assertTrue(typo.getMessage().contains("did you mean --user?"), typo.getMessage());
        assertTrue(ClientOptions.quickQueue("submit", List.of("--json")).isEmpty(), "queue's only");
    }

    @Test
    void aValuedOptionGivenTwice_isLeftToPicocli_whichRefusesItNamingBothValues() {
        UsageException user = assertThrows(UsageException.class,
                () -> ClientOptions.parse("queue", List.of("--user=ada", "--user", "bob")));
        assertEquals("--user given twice (ada, bob): give it once", user.getMessage());
        UsageException format = assertThrows(UsageException.class,
                () -> ClientOptions.parse("queue", List.of("--format", "%i", "--format", "%c %r", "--format", "%i")));
        assertEquals("--format given 3 times (%i, '%c %r', %i): give it once", format.getMessage());
        assertTrue(ClientOptions.parse("queue", List.of("--json", "--json")).json(), "a flag twice says it twice");
    }

    @Test
    void aFormatItsParserRefuses_isTheSameUsageErrorEitherWay() {
        List<String> bad = List.of("--format", "%i %Z");
        String quick = assertThrows(UsageException.class, () -> ClientOptions.parse("queue", bad)).getMessage();
        String picocli = assertThrows(UsageException.class, () -> ClientOptions.parseWithSpec("queue", bad)).getMessage();
        assertEquals(picocli, quick);
        assertTrue(quick.contains("unknown field %Z"), quick);
    }
}
