package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.GpuShare;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@code gpus=0.5}: a share of one GPU in the jobs file, and the one-line errors around it. */
class GpuShareSyntaxTest {
    private static final String FIX = "give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5";

    private static String error(String text) {
        return assertThrows(JobSpecException.class, () -> JobsFileParser.parse(text, "jobs.txt")).getMessage();
    }

    @Test
    void aFractionIsAShareOfOneGpu_withoutVram_andWrittenBackAsItWasRead() {
        JobSpec s = JobsFileParser.parse("python a.py\n[gpus=0.5 priority=2] python train.py\n", "jobs.txt").get(1);
        assertEquals(Optional.of(new GpuShare(new BigDecimal("0.5"))), s.share());
        assertEquals(1, s.gpus());
        assertEquals(OptionalLong.empty(), s.vramMib());
        assertTrue(s.declared());
        assertEquals("[gpus=0.5 priority=2] python train.py", s.toLine());
        assertEquals("[gpus=0.25] x", JobSpec.parse("[gpus=.250] x").toLine());
        assertEquals(12000, s.share().get().mibOf(24000));
        assertEquals(40960, s.share().get().mibOf(81920));
        assertEquals(8191, JobSpec.parse("[gpus=0.333333] x").share().get().mibOf(24576));
    }

    @Test
    void aShareMayBePinned() {
        JobSpec s = JobSpec.parse("[gpus=0.5 gpu-ids=1,3] x");
        assertEquals("[gpus=0.5 gpu-ids=1,3] x", s.toLine());
    }

    @Test
    void moreThanOneGpuThatIsNotWholeIsAOneLineErrorNamingFileLineAndFix() {
        assertEquals("jobs.txt:2: bad gpus 'gpus=1.5' (a fraction is a share of one GPU: above 0, below 1, at most 9 decimals); "
                + FIX, error("python a.py\n[gpus=1.5] python b.py\n"));
        assertEquals("jobs.txt:1: bad gpus 'gpus=2.0' (a fraction is a share of one GPU: above 0, below 1, at most 9 decimals); "
                + FIX, error("[gpus=2.0] x\n"));
        assertEquals("jobs.txt:1: bad gpus 'gpus=0.0' (a fraction is a share of one GPU: above 0, below 1, at most 9 decimals); "
                + FIX, error("[gpus=0.0] x\n"));
        assertEquals("jobs.txt:1: bad gpus 'gpus=0.1234567891' (a fraction is a share of one GPU: above 0, below 1, at most 9 decimals); "
                + FIX, error("[gpus=0.1234567891] x\n"));
    }

    @Test
    void zeroAndNegativeAreErrorsNamingTheFix() {
        assertEquals("jobs.txt:1: bad gpus 'gpus=0'; " + FIX, error("[gpus=0] x\n"));
        assertEquals("jobs.txt:3: bad gpus 'gpus=-0.5'; " + FIX, error("a\nb\n[gpus=-0.5] x\n"));
        assertEquals("jobs.txt:1: bad gpus 'gpus=-1'; " + FIX, error("[gpus=-1] x\n"));
    }

    @Test
    void aShareWithVramIsContradictory_inEitherOrder() {
        String both = "jobs.txt:1: vram=12G and gpus=0.5 both say how much memory the job needs; keep one: gpus=0.5 (that share"
                + " of whichever GPU it gets) or vram=12G (the same MiB on any GPU)";
        assertEquals(both, error("[vram=12G gpus=0.5] x\n"));
        assertEquals(both, error("[gpus=0.5 vram=12G] x\n"));
    }

    @Test
    void theRecordRefusesAShareBesideVramOrSeveralGpus() {
        Optional<GpuShare> half = GpuShare.parse("0.5");
        assertThrows(IllegalArgumentException.class, () -> JobSpec.builder("x").vramMib(OptionalLong.of(1)).key("k")
                .share(half).build());
        assertThrows(IllegalArgumentException.class, () -> JobSpec.builder("x").gpus(2).key("k").share(half).build());
        assertThrows(IllegalArgumentException.class, () -> new GpuShare(BigDecimal.ONE));
        assertThrows(IllegalArgumentException.class, () -> new GpuShare(BigDecimal.ZERO));
    }

    @Test
    void aListOfGpusInGpus_isAnsweredWithGpuIds() {
        String counts = " (gpus counts GPUs: " + FIX.substring("give ".length()) + ")";
        assertEquals("jobs.txt:1: bad gpus 'gpus=0,1'; to run on GPUs 0,1 write gpu-ids=0,1" + counts, error("[gpus=0,1] x\n"));
        assertEquals("jobs.txt:2: bad gpus 'gpus=0-3,6'; to run on GPUs 0-3,6 write gpu-ids=0-3,6" + counts,
                error("a\n[gpus=0-3,6] x\n"));
        // Not a list: a count, a share, or what no one would mean as GPUs.
        assertEquals("jobs.txt:1: bad gpus 'gpus=0,'; " + FIX, error("[gpus=0,] x\n"));
        assertEquals("jobs.txt:1: bad gpus 'gpus=-1'; " + FIX, error("[gpus=-1] x\n"));
    }
}
