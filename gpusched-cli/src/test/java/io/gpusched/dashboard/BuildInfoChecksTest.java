package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code --version}'s checks of the build date and revision, written by hand so that a cold JVM compiles no
 * regular expression (issue #27), accept exactly what the expressions they replace accept.
 */
class BuildInfoChecksTest {
    private static final String DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z";
    private static final String REVISION = "[0-9a-f]{7,64}";

    @Test
    void theDateCheck_acceptsWhatItsExpressionAccepts() {
        assertTrue(BuildInfo.isDate("2026-11-26T10:38:14Z"));
        assertFalse(BuildInfo.isDate("2026-11-26 10:38:14Z"));
        List<String> tries = new ArrayList<>(List.of("", "unknown", "2026-11-26T10:38:14", "2026-11-26T10:38:14Zx",
                "2026-1-26T10:38:14Z0", "2026-11-26T::::::::Z", "2026:11-26T10:38:14Z", "202a-11-26T10:38:14Z"));
        Random random = new Random(27);
        String alphabet = "0123456789-:TZx ";
        for (int i = 0; i < 20_000; i++) {
            char[] d = "2026-11-26T10:38:14Z".toCharArray();
            for (int k = random.nextInt(3); k > 0; k--) {
                d[random.nextInt(d.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
            }
            tries.add(new String(d));
        }
        for (String d : tries) {
            assertEquals(d.matches(DATE), BuildInfo.isDate(d), d);
        }
    }

    @Test
    void theRevisionCheck_acceptsWhatItsExpressionAccepts() {
        assertTrue(BuildInfo.isRevision("0563261d6467dff6c21462e50e0025506008e984"));
        Random random = new Random(27);
        String alphabet = "0123456789abcdefgABF ";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder r = new StringBuilder();
            for (int k = random.nextInt(70); k > 0; k--) {
                r.append(random.nextInt(8) == 0 ? alphabet.charAt(random.nextInt(alphabet.length()))
                        : "0123456789abcdef".charAt(random.nextInt(16)));
            }
            assertEquals(r.toString().matches(REVISION), BuildInfo.isRevision(r.toString()), r.toString());
        }
    }
}
