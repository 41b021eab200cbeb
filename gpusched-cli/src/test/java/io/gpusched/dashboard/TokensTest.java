package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TokensTest {
    private final Tokens tokens = Tokens.fresh();

    @Test
    void aTokenNamesTheUserItWasIssuedTo_inUrlSafeCharacters() {
        String t = tokens.issue("gs-da-a");
        assertEquals(Optional.of("gs-da-a"), tokens.user(t));
        assertTrue(t.matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}"), t);
        assertNotEquals(t, tokens.issue("gs-da-b"), "each user has their own");
    }

    @Test
    void everyOneCharacterChangeIsRefused_noOtherSpellingOfTheSameBytesPasses() {
        String t = tokens.issue("alice");
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
        for (int i = 0; i < t.length(); i++) {
            for (char c : alphabet.toCharArray()) {
                if (c != t.charAt(i)) {
                    String mangled = t.substring(0, i) + c + t.substring(i + 1);
                    assertEquals(Optional.empty(), tokens.user(mangled), mangled);
                }
            }
        }
        assertEquals(Optional.empty(), tokens.user(t + "A"));
        assertEquals(Optional.empty(), tokens.user(t.substring(0, t.length() - 1)));
    }

    @Test
    void anotherUsersNameWithMyMacIsRefused() {
        String mine = tokens.issue("mallory");
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString("root".getBytes(StandardCharsets.UTF_8))
                + mine.substring(mine.indexOf('.'));
        assertEquals(Optional.empty(), tokens.user(forged));
    }

    @Test
    void aTokenOfAnotherStartOrAnotherDaemonIsRefused() {
        assertEquals(Optional.empty(), Tokens.fresh().user(tokens.issue("alice")));
    }

    @Test
    void garbageIsRefusedWithoutAnException() {
        for (String bad : new String[] {"", ".", "abc", "abc.", ".abc", "!!!.abc", "a.b.c", "x".repeat(10_000) + ".y"}) {
            assertEquals(Optional.empty(), tokens.user(bad), bad);
        }
    }

    @Test
    void theSameSecretIssuesTheSameTokens_soAnyHttpThreadChecksThem() {
        byte[] key = new byte[32];
        key[0] = 7;
        assertEquals(new Tokens(key).issue("alice"), new Tokens(key).issue("alice"));
        assertTrue(Tokens.same("abc", "abc") && !Tokens.same("abc", "abd") && !Tokens.same("abc", "abcd"));
    }
}
