package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeBinaryTest {
    @TempDir
    Path dir;

    private static byte[] resource(String name) throws Exception {
        try (InputStream in = NativeBinary.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    private static String sha1Head(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes), 0, 6);
    }

    @Test
    void eachHelperIsCopiedUnderTheSha1OfItsBytes_asTheBuildRecordedIt() throws Exception {
        for (String name : new String[] {SpawnServer.RESOURCE, OwnerLaunch.RESOURCE}) {
            byte[] binary = resource(name);
            // The build's record (cc.sh) is what names the copy; a stale one would name it after other bytes.
            String recorded = new String(resource(name + ".sha1"), java.nio.charset.StandardCharsets.US_ASCII).strip();
            assertEquals(sha1Head(binary), recorded.substring(0, 12), name);
            Path exe = NativeBinary.extract(name, dir).orElseThrow();
            assertEquals(name + "-" + sha1Head(binary), exe.getFileName().toString());
            assertTrue(Files.isExecutable(exe));
            assertArrayEquals(binary, Files.readAllBytes(exe));
        }
    }

    @Test
    void theRecordedDigestCheck_acceptsWhatItsExpressionAccepts() {
        String sha1 = "0563261d6467dff6c21462e50e0025506008e984";
        assertTrue(NativeBinary.isSha1Hex(sha1));
        java.util.List<String> tries = new java.util.ArrayList<>(java.util.List.of("", sha1 + "0", sha1.substring(1),
                sha1.toUpperCase(java.util.Locale.ROOT), sha1.replace('0', 'g'), " " + sha1.substring(1),
                sha1.substring(0, 39) + "\n", sha1.replace('9', '/').replace('a', '`'), sha1.replace('0', ':')));
        java.util.Random random = new java.util.Random(29);
        // Around each bound of the ranges: '/' '0' '9' ':' and '`' 'a' 'f' 'g', and others hex is not.
        String alphabet = "/09:`afgAF xé";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder s = new StringBuilder();
            for (int k = 38 + random.nextInt(5); k > 0; k--) {
                s.append(random.nextInt(40) == 0 ? alphabet.charAt(random.nextInt(alphabet.length()))
                        : "0123456789abcdef".charAt(random.nextInt(16)));
            }
            tries.add(s.toString());
        }
        int accepted = 0;
        for (String s : tries) {
            assertEquals(s.matches("[0-9a-f]{40}"), NativeBinary.isSha1Hex(s), s);
            accepted += NativeBinary.isSha1Hex(s) ? 1 : 0;
        }
        assertTrue(accepted > 1_000 && accepted < tries.size() - 1_000, "both answers tried: " + accepted + " of " + tries.size());
    }

    @Test
    void withoutARecordedDigestTheBytesAreHashed() throws Exception {
        byte[] other = "#!/bin/sh\nexit 0\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(sha1Head(other), NativeBinary.hash("no-such-helper", other));
    }
}
