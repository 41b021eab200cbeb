package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyReaderTest {
    private static List<Integer> keys(String typed) throws Exception {
        KeyReader r = new KeyReader(new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8)));
        List<Integer> out = new ArrayList<>();
        for (int k = r.next(); k != KeyReader.END; k = r.next()) {
            out.add(k);
        }
        return out;
    }

    @Test
    void arrowsInBothCursorModesAreUpAndDown_otherSequencesAreSkippedWhole() throws Exception {
        assertEquals(List.of((int) 'k', TopSession.UP, TopSession.DOWN, KeyReader.NONE, (int) 'c', (int) 'y'),
                keys("k\u001b[A\u001bOB\u001b[1;5Ccy"));
    }

    @Test
    void aLoneEscapeIsTheEscapeKey_andCharactersBeyondAsciiAreNoKeys() throws Exception {
        assertEquals(List.of((int) 'p', TopSession.ESCAPE), keys("p\u001b"));
        assertEquals(List.of(KeyReader.NONE, KeyReader.NONE, (int) 'q'), keys("éq"));
        assertEquals(List.of(TopSession.CTRL_C), keys("\u0003"));
    }
}
