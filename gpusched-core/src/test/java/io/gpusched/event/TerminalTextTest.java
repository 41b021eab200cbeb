package io.gpusched.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TerminalText#escape}: what a terminal would act on, or what hides or reorders text, is written as
 * a visible escape; everything else, backslashes included, is left as the user wrote it. The property
 * over random text (no forbidden character ever comes out) is {@code OtherUsersTextOnTerminalsTest}'s,
 * where the property runner is.
 */
class TerminalTextTest {
    @Test
    void anOsc52ClipboardWrite_andAScreenClear_areShownNotSent() {
        assertEquals("x \\e]52;c;cm0gLXJmIH4K\\x07\\e[2J y", TerminalText.escape("x \u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J y"));
    }

    @Test
    void everyC0Control_delAndEveryC1Control_areEscaped_theCommonOnesByName() {
        assertEquals("\\t\\n\\r\\e\\x00\\x07\\x08\\x0b\\x0c\\x1f", TerminalText.escape("\t\n\r\u001b\u0000\u0007\b\u000b\f\u001f"));
        assertEquals("\\x7f\\x80\\x85\\x9b\\x9f", TerminalText.escape("\u007f\u0080\u0085\u009b\u009f"));
    }

    @Test
    void bidiOverridesIsolatesAndMarks_lineSeparators_andInvisibleFormatCharacters_areEscaped() {
        assertEquals("\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c",
                TerminalText.escape("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"));
        assertEquals("a\\u2028b\\u2029c", TerminalText.escape("a\u2028b\u2029c"));
        assertEquals("\\u200b\\ufeff\\u00ad\\u2060", TerminalText.escape("\u200b\ufeff\u00ad\u2060"));
        // A tag character (invisible text riding on a flag emoji, or alone) is beyond the BMP.
        assertEquals("\\U000e0041\\U000e007f", TerminalText.escape(new String(Character.toChars(0xE0041))
                + new String(Character.toChars(0xE007F))));
    }

    @Test
    void aSurrogateWithoutItsPair_isEscaped_aPairIsKept() {
        assertEquals("a\\ud83d b\\ude00 c😀", TerminalText.escape("a\uD83D b\uDE00 c\uD83D\uDE00"));
        assertEquals("\\ud83d", TerminalText.escape("\uD83D"));
    }

    @Test
    void ordinaryTextOfAnyScript_quotesAndBackslashes_comesBackUnchanged_theSameString() {
        for (String s : List.of("", "python train.py --lr=3e-4", "echo 'single' \"double\" `tick` $HOME",
                "printf '%s\\n' a b; sed 's/\\./_/g' C:\\data\\run\\", "日本語 한국어 中文 עברית العربية ελληνικά",
                "😀 👨\u200D👩\u200D👧 ✓ ✗ — … ▶ ↻", "e\u0301 combining, میخواهم with ZWNJ: می\u200Cخواهم", "\u00a0nbsp ü ß")) {
            assertSame(s, TerminalText.escape(s), s);
        }
    }

    @Test
    void escapingTwice_isEscapingOnce() {
        String once = TerminalText.escape("a\u001b[31m\\e\r\u202e\uD800\u2028");
        assertEquals("a\\e[31m\\e\\r\\u202e\\ud800\\u2028", once);
        assertSame(once, TerminalText.escape(once));
    }

    @Test
    void anExcerptIsEscapedOnOneLineAndCutWithDots_neverSplittingAPair() {
        assertEquals("short", TerminalText.excerpt("short", 10));
        assertEquals("abc...", TerminalText.excerpt("abcdef", 3));
        assertEquals("a\\n...", TerminalText.excerpt("a\nb\nc", 3), "cut after escaping too");
        assertEquals("ab...", TerminalText.excerpt("ab\uD83D\uDE00", 3), "the emoji's pair is not cut in two");
        String huge = TerminalText.excerpt("\u001b".repeat(1 << 20), 64);
        assertEquals(67, huge.length());
        assertTrue(huge.chars().noneMatch(c -> c < 0x20), huge);
    }
}
