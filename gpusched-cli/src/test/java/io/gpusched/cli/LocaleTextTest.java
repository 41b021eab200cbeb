package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LocaleTextTest {
    @Test
    void ascii_spellsEachCharacterAsQueueDoes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = LocaleText.ascii(bytes);
        out.println("job 4 pending — waits: needs 1 GPU with ≥ 2048 MiB");
        out.print("echo héllo ✓ wörld, ±10% → ok");
        out.flush();
        assertEquals("job 4 pending - waits: needs 1 GPU with >= 2048 MiB\necho h?llo + w?rld, +/-10% -> ok",
                bytes.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void ascii_keepsACharacterCutAtAFlush_forTheNextWrite() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = LocaleText.ascii(bytes);
        byte[] dash = "a—b".getBytes(StandardCharsets.UTF_8);
        out.write(dash, 0, 2);
        out.flush();
        assertEquals("a", bytes.toString(StandardCharsets.US_ASCII));
        out.write(dash, 2, dash.length - 2);
        out.flush();
        assertEquals("a-b", bytes.toString(StandardCharsets.US_ASCII));
    }
}
