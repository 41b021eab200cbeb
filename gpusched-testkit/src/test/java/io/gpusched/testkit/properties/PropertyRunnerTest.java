package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The property runner the suites rely on: it must really try, really fail, and say how to replay. */
class PropertyRunnerTest {

    @Test
    void runsExactlyTheRequestedNumberOfTries() {
        assumeTrue(System.getProperty(Property.TRIES_PROPERTY) == null, "tries overridden for this run");
        int[] calls = {0};
        Property.forAll(Gen.ints(0, 10)).tries(1000).check(x -> calls[0]++);
        assertEquals(1000, calls[0]);
    }

    @Test
    void falsifiedPropertyReportsSeedAndAShrunkSample() {
        assumeTrue(System.getProperty(Property.SEED_PROPERTY) == null, "seed overridden for this run");
        AssertionError e = assertThrows(AssertionError.class, () ->
                Property.forAll(Gen.listOf(Gen.ints(0, 1000), 0, 50)).tries(1000).seed(7)
                        .check(list -> assertTrue(list.size() < 3, "short")));
        assertTrue(e.getMessage().contains("seed 7; replay with -Dgpusched.seed=7"), e.getMessage());
        // Shrinking by regeneration finds a sample generated at a small size, so at most a few elements.
        String smallest = e.getMessage().lines().skip(2).findFirst().orElseThrow().strip();
        assertTrue(smallest.chars().filter(c -> c == ',').count() < 6, "shrunk: " + smallest);
    }

    @Test
    void anyThrowableFalsifies_notOnlyAssertionErrors() {
        AssertionError e = assertThrows(AssertionError.class, () ->
                Property.forAll(Gen.ints(0, 10)).check(x -> {
                    throw new IllegalStateException("boom " + x);
                }));
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @Test
    void sameSeedGivesTheSameValues() {
        assumeTrue(System.getProperty(Property.TRIES_PROPERTY) == null, "tries overridden for this run");
        List<Long> first = new ArrayList<>();
        List<Long> second = new ArrayList<>();
        Property.forAll(Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE)).tries(200).seed(42).check(first::add);
        Property.forAll(Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE)).tries(200).seed(42).check(second::add);
        assertEquals(first, second);
    }

    @Test
    void longsStayInRangeAndHitBothBounds() {
        Gen<Long> g = Gen.longs(-3, Long.MAX_VALUE);
        SplittableRandom r = new SplittableRandom(1);
        boolean min = false;
        boolean max = false;
        for (int i = 0; i < 2000; i++) {
            long v = g.next(r, 50);
            assertTrue(v >= -3);
            min |= v == -3;
            max |= v == Long.MAX_VALUE;
        }
        assertTrue(min && max);
    }
}
