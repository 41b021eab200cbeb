package io.gpusched.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.Notes;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A pending row's JSON is written field by field, not by reflection over its components; it must read
 * byte for byte as the reflective writer wrote it, whole and cut for a list view, whatever its strings
 * hold (quotes, controls, characters outside the Basic Multilingual Plane, lone surrogates).
 */
class PendingRowJsonTest {
    private static final String PIECES = "ab Z9\"\\\n\t\u0000\u001f\u007f\u00e9\u2014\u2028😀\ud800\udfff/<>";
    private static final int TRIES = 3000;

    /** A random string of up to {@code max} UTF-16 units, drawn from {@link #PIECES}. */
    private static String text(SplittableRandom r, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(max + 1); i > 0; i--) {
            b.append(PIECES.charAt(r.nextInt(PIECES.length())));
        }
        return b.toString();
    }

    private static <T> Optional<T> maybe(SplittableRandom r, T value) {
        return r.nextBoolean() ? Optional.of(value) : Optional.empty();
    }

    static StatusBoard.Pending row(SplittableRandom r) {
        return StatusBoard.Pending.builder(r.nextInt(1, 200_000), text(r, 40))
                .declaredMib(r.nextBoolean() ? OptionalLong.of(r.nextLong(0, 1L << 40)) : OptionalLong.empty())
                .attempts(r.nextInt(4)).reason(text(r, 30)).owner(maybe(r, text(r, 8))).held(r.nextBoolean())
                .priority(r.nextInt(-5, 6)).rule(maybe(r, text(r, 10)))
                .notes(r.nextBoolean() ? new Notes<>(List.of(new Notes.Note<>(Attribute.COMMENT, text(r, 20)))) : Notes.none())
                .gpusAsked(maybe(r, text(r, 6))).since(maybe(r, Instant.ofEpochSecond(r.nextLong(0, 4_000_000_000L), r.nextInt(1_000_000_000))))
                .tty(r.nextBoolean()).build();
    }

    @Test
    void aPendingRowReadsAsTheReflectiveWriterWroteIt_wholeAndCutForAListView() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < TRIES; i++) {
            StatusBoard.Pending p = row(r);
            assertEquals(JsonEventWriter.reflectiveJson(p, Integer.MAX_VALUE, Integer.MAX_VALUE), JsonEventWriter.valueToJson(p),
                    "seed " + seed + ", row " + p);
            int commandChars = r.nextInt(2, 50);
            int textChars = r.nextInt(2, 40);
            assertEquals(JsonEventWriter.reflectiveJson(p, commandChars, textChars), JsonEventWriter.listJson(p, commandChars, textChars),
                    "seed " + seed + ", cut at " + commandChars + "/" + textChars + ", row " + p);
        }
    }

    @Test
    void theOracleIsTheReflectiveWriter_whichNamesEveryComponent() {
        StatusBoard.Pending p = StatusBoard.Pending.builder(7, "x").gpusAsked(Optional.of("0,1"))
                .since(Optional.of(Instant.parse("2026-01-02T03:04:05Z"))).tty(true).build();
        String json = JsonEventWriter.reflectiveJson(p, Integer.MAX_VALUE, Integer.MAX_VALUE);
        for (var c : StatusBoard.Pending.class.getRecordComponents()) {
            if (!c.getName().equals("notes")) {
                assertTrue(json.contains("\"" + JsonEventWriter.snake(c.getName()) + "\":"), c.getName() + " in " + json);
            }
        }
        assertEquals(json, JsonEventWriter.valueToJson(p));
    }
}
