package io.gpusched.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.jobs.Units;
import io.gpusched.model.Verdict;
import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The OOM rules every driver shares, as tables: which log tails are a CUDA OOM, and what a retry declares.
 * The examples are the ones that pinned the Slurm executor's former copy to the engine's rules.
 */
class VerdictsTest {
    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB | true
            torch.OutOfMemoryError: CUDA out of memory.                  | true
            CUDA error: out of memory                                    | true
            CUDA_ERROR_OUT_OF_MEMORY                                     | true
            cudaErrorMemoryAllocation                                    | true
            2024 W tensorflow RESOURCE_EXHAUSTED: OOM when allocating     | true
            Traceback: KeyError: 'x'                                     | false
            ""                                                           | false
            out of memory                                                | false
            """)
    void aLogTailIsAnOomWhenItHoldsACudaPytorchOrTensorflowSignature(String tail, boolean oom) {
        assertEquals(oom, Verdicts.looksLikeOom(tail), tail);
    }

    /**
     * A blank cell is an undeclared job, or (in the last column) no declaration to bump to. The last five rows
     * are the clamp to {@link Units#MAX_MIB}, which the Slurm executor's former copy of the bump did not have.
     */
    @ParameterizedTest(name = "declared {0}, peak {1} → {2}")
    @CsvSource(delimiter = '|', textBlock = """
                       |          0 |
                       |          1 | 2
                       |       1999 | 2499
                       |       2000 | 2500
                       |       2400 | 3000
                       |     100000 | 125000
                     1 |          0 | 2
                     1 |          1 | 2
                     1 |       1999 | 2499
                     1 |       2000 | 2500
                     1 |       2400 | 3000
                     1 |     100000 | 125000
                  2000 |          0 | 2500
                  2000 |          1 | 2500
                  2000 |       1999 | 2500
                  2000 |       2000 | 2500
                  2000 |       2400 | 3000
                  2000 |     100000 | 125000
                     3 |          0 | 4
                     3 |          1 | 4
                     3 |       1999 | 2499
                     3 |       2000 | 2500
                     3 |       2400 | 3000
                     3 |     100000 | 125000
                 80000 |          0 | 100000
                 80000 |          1 | 100000
                 80000 |       1999 | 100000
                 80000 |       2000 | 100000
                 80000 |       2400 | 100000
                 80000 |     100000 | 125000
            2147483647 |          0 | 2147483647
                     1 | 2147483647 | 2147483647
            1717986918 |          0 | 2147483647
            1717986917 |          0 | 2147483647
            1717986916 |          0 | 2147483645
            """)
    void theRetryDeclaresTheCeilingOfAQuarterMoreThanTheLargerOfPeakAndDeclaration_clampedToTheLargestDeclaration(
            Long declared, long peak, Long next) {
        assertEquals(next == null ? OptionalLong.empty() : OptionalLong.of(next),
                Verdicts.bump(declared == null ? OptionalLong.empty() : OptionalLong.of(declared), peak));
    }

    @ParameterizedTest(name = "bump of {0} ≤ {1}")
    @CsvSource({"2147483647", "2147483646", "1717986919"})
    void noRetryDeclaresMoreThanAJobsFileMay(long declared) {
        assertEquals(OptionalLong.of(Units.MAX_MIB), Verdicts.bump(OptionalLong.of(declared), 0));
    }

    @ParameterizedTest(name = "declared {0}, attributed {1}, peak {2} → {3}")
    @CsvSource(delimiter = '|', textBlock = """
            1000 | false | 5000 | UNATTRIBUTED
                 | false |    0 | UNATTRIBUTED
                 | true  | 5000 | NOT_JUDGED
            1000 | true  | 1000 | WITHIN
            1000 | true  | 1500 | OVER
            1000 | true  |  500 | UNDER
            """)
    void aVerdictNeedsAnAttributedPeakAndADeclaration(Long declared, boolean attributed, long peak, Verdict verdict) {
        assertEquals(verdict, Verdicts.verdict(declared == null ? OptionalLong.empty() : OptionalLong.of(declared),
                attributed, peak, 0.1));
    }
}
