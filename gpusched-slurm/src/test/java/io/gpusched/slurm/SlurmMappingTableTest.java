package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Units;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Every row of the attribute table has a Slurm treatment, and the mapping does what it says: a row
 * asked of Slurm changes the {@code sbatch} options, a row the executor carries out leaves them as they
 * are, a refused row refuses the line and names itself. A row added to the table is checked here with
 * no test edited.
 */
class SlurmMappingTableTest {
    /** Shards as large as the largest vram, so no job here is refused for its size. */
    private static final SlurmMapping MAPPING = new SlurmMapping(Units.MAX_MIB, 8);
    private static final JobSpec PLAIN = JobSpec.parse("python train.py");

    @Test
    void eachRowSetOnAPlainJobIsAskedOfSlurm_leftToTheExecutor_orRefusedNamingIt() {
        List<String> plain = ((SlurmRequest.Mapped) MAPPING.map(PLAIN, "jobs.txt")).sbatchOptions();
        for (Attribute a : Attribute.ALL) {
            SlurmMapping.Treatment treatment = SlurmMapping.treatment(a);
            Property.forAll(JobSpecArbitraries.setting(a).map(change -> change.apply(PLAIN))).tries(200).check(spec -> {
                // vram=auto asks for what the executor learned (a whole GPU only while nothing is).
                SlurmRequest r = MAPPING.map(spec, spec.learnVram() ? OptionalLong.of(4096) : spec.vramMib(), "jobs.txt");
                if (treatment instanceof SlurmMapping.Sbatch s) {
                    assertNotEquals(plain, assertInstanceOf(SlurmRequest.Mapped.class, r, a + ": " + spec).sbatchOptions(),
                            a + " is asked of Slurm (" + s.how() + "), so its options differ from a plain job's");
                } else if (treatment instanceof SlurmMapping.ByExecutor e) {
                    assertEquals(plain, assertInstanceOf(SlurmRequest.Mapped.class, r, a + ": " + spec).sbatchOptions(),
                            a + " is the executor's (" + e.how() + "), so nothing more is asked of Slurm");
                } else {
                    SlurmMapping.Refused refused = assertInstanceOf(SlurmMapping.Refused.class, treatment);
                    String message = assertInstanceOf(SlurmRequest.Refused.class, r, a + ": " + spec).message();
                    assertEquals("jobs.txt:1: " + refused.why().apply(spec), message);
                    // As written: after-ok= too, though it is kept as after=.
                    assertTrue(message.contains(a.key() + (a.bare() ? "" : "=")), a + " names itself: " + message);
                    assertTrue(message.contains("; ") && !message.contains("\n"), "one line with the fix: " + message);
                }
            });
        }
    }

    @Test
    void aCommentIsAskedOfSlurmAsComment_asWritten_afterGresAndTime() {
        JobSpec spec = JobSpec.parse("[timeout=90 comment=\"nightly sweep: it's \\\"v2\\\"\"] python train.py");
        assertEquals(List.of("--gres=gpu:1", "--time=2", "--comment=nightly sweep: it's \"v2\""),
                ((SlurmRequest.Mapped) MAPPING.map(spec, "jobs.txt")).sbatchOptions());
        assertEquals(List.of("--gres=gpu:1", "--comment=a note"),
                ((SlurmRequest.Mapped) MAPPING.map(JobSpec.parse("[comment='a note'] python train.py"), "jobs.txt"))
                        .sbatchOptions());
    }

    @Test
    void aLineWithSeveralRefusedRowsIsToldOfTheOneItWasToldOfBeforeTheTable() {
        assertEquals("f:1: tty cannot be honoured on Slurm (a batch job has no terminal); remove tty from the line, or run"
                + " the file without --executor slurm",
                ((SlurmRequest.Refused) MAPPING.map(JobSpec.parse("[priority=3 tty conda=torch] x"), "f")).message());
        assertTrue(((SlurmRequest.Refused) MAPPING.map(JobSpec.parse("[priority=3 after-any=a setup=true] x"), "f"))
                .message().startsWith("f:1: priority=3 cannot be honoured on Slurm"));
    }
}
