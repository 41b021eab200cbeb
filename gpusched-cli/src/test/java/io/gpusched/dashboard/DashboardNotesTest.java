package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's queue shows a job's notes from the attribute table: the server fills the page's list of
 * note fields in from {@link Attribute#SHOWN}, and the page's script names no shown attribute itself.
 */
class DashboardNotesTest {
    @Test
    void thePageListsEveryShownAttributesField_andItsScriptNamesNoneOfThemItself() throws IOException {
        String raw;
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard.html")) {
            raw = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(raw.contains("const NOTES = %NOTES%;"), "the page takes its note fields from the server");
        for (Attribute a : Attribute.SHOWN) {
            assertFalse(raw.contains("." + a.fieldName()) || raw.contains("[\"" + a.fieldName() + "\"]"),
                    "the page's script reads " + a.fieldName() + " through NOTES only");
        }
        String page = Dashboard.notesFilledIn(raw);
        assertFalse(page.contains("%NOTES%"));
        String fields = Attribute.SHOWN.stream().map(a -> "\"" + a.fieldName() + "\"")
                .collect(Collectors.joining(",", "[", "]"));
        assertEquals(1, page.split(java.util.regex.Pattern.quote("const NOTES = " + fields + ";"), -1).length - 1, page);
    }
}
