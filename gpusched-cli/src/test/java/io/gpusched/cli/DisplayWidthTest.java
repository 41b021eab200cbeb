package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DisplayWidthTest {
    @Test
    void countsTerminalColumns_wideCharactersTwoCombiningMarksNone() {
        assertEquals(3, DisplayWidth.of("abc"));
        assertEquals(4, DisplayWidth.of("日本"));
        assertEquals(2, DisplayWidth.of("한"));
        assertEquals(1, DisplayWidth.of("e\u0301")); // e + combining acute
        assertEquals(2, DisplayWidth.of("\uD83D\uDE00")); // an emoji, one code point of two chars
        assertEquals(4, DisplayWidth.of("█▓░▒"), "the bars' block characters take one column each");
        assertEquals(3, DisplayWidth.of("✓✗…"));
    }

    @Test
    void cleanKeepsEscapesAndLineBreaksOffTheScreen() {
        assertEquals("a b ?[31mred?[0m ?x", DisplayWidth.clean("a\tb\n\u001b[31mred\u001b[0m \u202Ex"));
        assertEquals("日本 ok", DisplayWidth.clean("日本 ok"));
    }

    @Test
    void fitCutsByColumnsAndMarksTheCut() {
        assertEquals("python tr…", DisplayWidth.fit("python train.py", 10, "…"));
        assertEquals("python train.py", DisplayWidth.fit("python train.py", 15, "…"));
        assertEquals("日…", DisplayWidth.fit("日本語", 4, "…"), "a wide character that would pass the edge goes whole");
        assertEquals("", DisplayWidth.fit("abc", 0, "…"));
        assertEquals("ab   ", DisplayWidth.padRight("ab", 5, "…"));
        assertEquals("  日", DisplayWidth.padLeft("日", 4, "…"));
        assertEquals("日… ", DisplayWidth.padRight("日本語", 4, "…"));
    }
}
