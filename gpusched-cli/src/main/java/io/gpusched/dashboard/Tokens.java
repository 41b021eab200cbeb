package io.gpusched.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's per-user tokens: {@code base64url(user) "." base64url(HMAC-SHA256(secret, user))}, the
 * secret 32 bytes from {@link SecureRandom} drawn at each daemon start, so a token holds until the daemon
 * restarts and no other daemon takes it. Nothing is stored: a token names its user and proves that this
 * daemon issued it. Checked by recomputing the whole token and comparing in constant time
 * ({@link MessageDigest#isEqual}), so a guess learns nothing from how long the refusal took, and a
 * token with any character changed is refused (no second spelling of the same bytes passes).
 */
final class Tokens {
    private static final Base64.Encoder ENCODE = Base64.getUrlEncoder().withoutPadding();
    /** Longer than any token this issues for a real user name; anything longer is refused unread. */
    private static final int MAX_TOKEN = 512;
    /** Ties a MAC to this use, so the secret could never sign anything else by accident. */
    private static final byte[] PURPOSE = "gpusched dashboard token v1\0".getBytes(StandardCharsets.UTF_8);

    private final byte[] secret;

    /** @param secret the key; 32 random bytes in use ({@link #fresh()}) */
    Tokens(byte[] secret) {
        this.secret = secret.clone();
    }

    /** @return tokens under a new random secret: those of an earlier start are refused */
    static Tokens fresh() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return new Tokens(key);
    }

    /**
     * @param user a user name, as the kernel gives it
     * @return that user's token: URL-safe characters only ({@code A-Z a-z 0-9 - _ .})
     */
    String issue(String user) {
        byte[] name = user.getBytes(StandardCharsets.UTF_8);
        return ENCODE.encodeToString(name) + "." + ENCODE.encodeToString(mac(name));
    }

    /**
     * @param token what a request carried
     * @return the user it was issued to; empty when this daemon did not issue it
     */
    Optional<String> user(String token) {
        int dot = token.indexOf('.');
        if (dot <= 0 || token.length() > MAX_TOKEN) {
            return Optional.empty();
        }
        byte[] name;
        try {
            name = Base64.getUrlDecoder().decode(token.substring(0, dot));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        String user = new String(name, StandardCharsets.UTF_8);
        boolean same = MessageDigest.isEqual(issue(user).getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
        return same ? Optional.of(user) : Optional.empty();
    }

    /**
     * @param expected the secret a request must carry
     * @param given what it carried
     * @return whether they are equal, in time that does not depend on where they differ
     */
    static boolean same(String expected, String given) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }

    private byte[] mac(byte[] name) {
        try {
            // A Mac is not thread-safe; one per token costs microseconds, far below a request's.
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            m.update(PURPOSE);
            return m.doFinal(name);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no HmacSHA256, which every Java SE provides", e);
        }
    }
}
