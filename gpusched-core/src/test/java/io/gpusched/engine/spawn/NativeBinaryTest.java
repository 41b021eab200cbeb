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
    void withoutARecordedDigestTheBytesAreHashed() throws Exception {
        byte[] other = "#!/bin/sh\nexit 0\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(sha1Head(other), NativeBinary.hash("no-such-helper", other));
    }
}
