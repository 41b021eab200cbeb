package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The copy of core's OOM rules says what core's {@code engine.Verdicts} says, on the same examples: a Slurm job's
 * OOM is retried exactly when a local one's would be, with the same bump. Core keeps them package-private, so
 * they are reached reflectively (tests run on the class path).
 */
class OomCheckTest {
    private static final List<String> TAILS = List.of(
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
            "torch.OutOfMemoryError: CUDA out of memory.",
            "CUDA error: out of memory", "CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation",
            "2024 W tensorflow RESOURCE_EXHAUSTED: OOM when allocating", "Traceback: KeyError: 'x'", "", "out of memory");

    private static Method core(String name, Class<?>... types) throws Exception {
        Method m = Class.forName("io.gpusched.engine.Verdicts").getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m;
    }

    @Test
    void aLogTailIsAnOomHereExactlyWhenItIsOneForALocalRun() throws Exception {
        Method looksLikeOom = core("looksLikeOom", String.class);
        for (String tail : TAILS) {
            assertEquals(looksLikeOom.invoke(null, tail), OomCheck.looksLikeOom(tail), tail);
        }
    }

    @Test
    void theRetrysDeclarationIsTheLocalRunsBump() throws Exception {
        Method bump = core("bump", OptionalLong.class, long.class);
        for (OptionalLong declared : List.of(OptionalLong.empty(), OptionalLong.of(1), OptionalLong.of(2000),
                OptionalLong.of(3), OptionalLong.of(80_000))) {
            for (long peak : new long[] {0, 1, 1999, 2000, 2400, 100_000}) {
                assertEquals(bump.invoke(null, declared, peak), OomCheck.bump(declared, peak), declared + " " + peak);
            }
        }
    }
}
