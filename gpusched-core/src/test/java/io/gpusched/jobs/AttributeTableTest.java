package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link Attribute}'s table is what the grammar, {@link JobSpec#toLine()} and the requirement rules
 * follow: each test goes over every row, so a row added to the table is checked with no test edited.
 */
class AttributeTableTest {
    /** A line that sets every attribute the table had when it was written, in an order unlike the table's. */
    private static final String EVERY_ATTRIBUTE = "[tty setup='. venv/bin/activate' conda=torch after-any=c after-ok=b"
            + " name=train on-timeout=requeue preemptible gpu-ids=0-3 priority=-3 cancel retries=2 timeout=2h gpus=2"
            + " vram=8G] python train.py";

    @Test
    void eachRowIsReadByItsKeyInAnyCase_andItsKeyIsItsConstantsName() {
        for (Attribute a : Attribute.ALL) {
            assertEquals(a.name().toLowerCase(Locale.ROOT).replace('_', '-'), a.key());
            assertEquals(Optional.of(a), Attribute.forKey(a.key()));
            assertEquals(Optional.of(a), Attribute.forKey(a.key().toUpperCase(Locale.ROOT)));
        }
        assertEquals(Optional.empty(), Attribute.forKey("vrma"));
    }

    @Test
    void anUnknownKeyIsToldTheTablesKeysInTheTablesOrder() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[zzz=1] x"));
        assertTrue(e.getMessage().endsWith("known keys: " + String.join(", ", Attribute.ALL.stream().map(Attribute::key)
                .toList())), e.getMessage());
    }

    @Test
    void aBareRowIsReadOnlyWithoutAValue_andAValuedRowOnlyWithOne() {
        for (Attribute a : Attribute.ALL) {
            if (a.bare()) {
                assertTrue(a.written(JobSpec.parse("[" + a.key() + "] x")).isPresent(), a.key());
                JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[" + a.key() + "=1] x"));
                assertTrue(e.getMessage().contains(a.key() + " takes no value"), e.getMessage());
            } else {
                JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[" + a.key() + "] x"));
                assertTrue(e.getMessage().contains("token without '='"), e.getMessage());
            }
        }
    }

    @Test
    void aBareWordIsNeverAJobName_andAfterItACommaIsTakenForASeparator() {
        for (Attribute a : Attribute.ALL.stream().filter(Attribute::bare).toList()) {
            assertFalse(Scheduling.NAME.matcher(a.key()).matches(), a.key());
            assertFalse(Scheduling.NAME.matcher(a.key().toUpperCase(Locale.ROOT)).matches(), a.key());
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[after=prep," + a.key() + "] x"));
            assertEquals("write [after=prep " + a.key() + "]", e.expected(), e.getMessage());
        }
    }

    @Test
    void aJobAtItsDefaultsWritesNoRow_andALineSettingEveryRowWritesThemInTheTablesOrder() {
        JobSpec plain = JobSpec.parse("python train.py");
        for (Attribute a : Attribute.ALL) {
            assertEquals(Optional.empty(), a.written(plain), a.key());
        }
        JobSpec every = JobSpec.parse(EVERY_ATTRIBUTE);
        List<String> tokens = new ArrayList<>();
        for (Attribute a : Attribute.ALL) {
            a.written(every).ifPresent(tokens::add);
            // after-ok is written as after: one way to write each job back.
            assertTrue(a.sameAs().isEmpty() || a.written(every).isEmpty(), a.key());
        }
        String line = every.toLine();
        assertEquals("[" + String.join(" ", tokens) + "] python train.py", line);
        assertEquals("[vram=8192 gpus=2 timeout=7200s retries=2 cancel priority=-3 gpu-ids=0-3 preemptible on-timeout=requeue"
                + " name=train after=b after-any=c conda=torch setup='. venv/bin/activate' tty] python train.py", line);
        assertEquals(every, JobSpec.parse(line));
    }

    @Test
    void anotherSpellingIsReadAsTheRowItSpells() {
        for (Attribute a : Attribute.ALL) {
            a.sameAs().ifPresent(same -> assertEquals(JobSpec.parse("[" + same.key() + "=p] x"),
                    JobSpec.parse("[" + a.key() + "=p] x"), a.key()));
        }
    }

    @Test
    void aFlagIsTheKeyAsALongOption_takingAValueExactlyWhenTheRowDoes() {
        for (Attribute a : Attribute.ALL) {
            a.flag().ifPresent(f -> {
                assertEquals("--" + a.key(), f.option());
                assertEquals(a.bare(), f.metavar().isEmpty(), a.key());
                assertFalse(f.help().isBlank() || f.help().contains("\n"), a.key());
            });
        }
    }

    @Test
    void aRequirementRuleFillsExactlyTheRowsMarkedSo() {
        for (Attribute a : Attribute.ALL) {
            byte[] file = ("{\"default\": {\"" + a.key() + "\": 2}}").getBytes(StandardCharsets.UTF_8);
            JobSpec filled;
            try {
                filled = RequirementsParser.parse(file, "req.json").apply(JobSpec.parse("x")).spec();
            } catch (RequirementsParser.RequirementsException e) {
                assertFalse(a.ruleFills(), a.key() + " is marked as filled by a rule, but a rule cannot give it: "
                        + e.getMessage());
                continue;
            }
            assertEquals(a.ruleFills(), a.written(filled).isPresent(), a.key());
        }
    }
}
