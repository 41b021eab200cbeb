package io.gpusched.testkit.arbitraries;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Runs a check against many generated values and reports the smallest failing one it can find.
 * Works with any test framework: a falsified property throws an {@link AssertionError} whose message
 * holds the seed to reproduce it, the smallest failing sample and the first one.
 *
 * <pre>{@code
 * Property.forAll(GpuArbitraries.allocationCases()).tries(1000).check(c -> {
 *     Placement p = c.place();
 *     ...
 * });
 * }</pre>
 *
 * <p>Each run takes a fresh seed, so repeated runs explore new values; set the system property
 * {@value #SEED_PROPERTY} (e.g. {@code mvn verify -Dgpusched.seed=42}) to replay a reported run.
 * Any throwable from the check falsifies the property, not only assertion errors, so "never throws
 * anything but X" properties need no extra wrapping.
 *
 * <p>Shrinking is by regeneration: after a failure the runner draws fresh values at ever larger size
 * hints, starting from 1, and keeps the first one that fails. It does not walk the structure of the
 * failing value, so the sample is small but not always minimal.
 *
 * @param <T> the generated type
 */
public final class Property<T> {
    /** System property that fixes the seed of every property run. */
    public static final String SEED_PROPERTY = "gpusched.seed";
    /**
     * System property that overrides every property's number of tries, for a deeper hunt than the
     * build can afford (e.g. {@code -Dgpusched.tries=50000}).
     */
    public static final String TRIES_PROPERTY = "gpusched.tries";
    /** Tries per property unless {@link #tries(int)} or {@value #TRIES_PROPERTY} says otherwise. */
    public static final int DEFAULT_TRIES = 1000;

    private static final int SHRINK_DRAWS_PER_SIZE = 40;

    private final Gen<T> gen;
    private final int tries;
    private final Long seed;

    private Property(Gen<T> gen, int tries, Long seed) {
        this.gen = gen;
        this.tries = tries;
        this.seed = seed;
    }

    /**
     * @param gen generates the inputs
     * @param <T> the input type
     * @return a property over {@code gen} with {@value #DEFAULT_TRIES} tries
     */
    public static <T> Property<T> forAll(Gen<T> gen) {
        return new Property<>(Objects.requireNonNull(gen, "gen"), DEFAULT_TRIES, null);
    }

    /**
     * @param n how many values to check, at least 1
     * @return a copy that checks {@code n} values
     */
    public Property<T> tries(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("tries must be >= 1, got " + n);
        }
        return new Property<>(gen, n, seed);
    }

    /**
     * Fixes the seed in code, e.g. to pin a once-found case; the system property still wins so a
     * reported failure can always be replayed.
     *
     * @param fixed the seed
     * @return a copy that uses it
     */
    public Property<T> seed(long fixed) {
        return new Property<>(gen, tries, fixed);
    }

    /**
     * Checks every generated value.
     *
     * @param check throws (usually an {@link AssertionError}) when a value falsifies the property
     * @throws AssertionError describing the seed and the smallest failing sample found
     */
    public void check(Consumer<? super T> check) {
        long runSeed = runSeed();
        int runTries = Math.max(1, Integer.getInteger(TRIES_PROPERTY, tries));
        SplittableRandom master = new SplittableRandom(runSeed);
        for (int i = 0; i < runTries; i++) {
            // Cycling the size keeps small values coming all through the run, not only at its start.
            int size = 1 + i % Gen.MAX_SIZE;
            long trySeed = master.nextLong();
            T value = gen.next(new SplittableRandom(trySeed), size);
            Throwable failure = failureOf(check, value);
            if (failure != null) {
                throw falsified(check, i + 1, runTries, size, runSeed, trySeed, value, failure);
            }
        }
    }

    private long runSeed() {
        String fromSystem = System.getProperty(SEED_PROPERTY);
        if (fromSystem != null && !fromSystem.isBlank()) {
            return Long.parseLong(fromSystem.strip());
        }
        return seed != null ? seed : new SplittableRandom().nextLong();
    }

    private AssertionError falsified(Consumer<? super T> check, int tryNo, int runTries, int size, long runSeed, long trySeed,
                                     T value, Throwable failure) {
        T smallest = value;
        Throwable smallestFailure = failure;
        int smallestSize = size;
        SplittableRandom shrinkRandom = new SplittableRandom(trySeed);
        search:
        for (int s = 1; s < size; s++) {
            for (int k = 0; k < SHRINK_DRAWS_PER_SIZE; k++) {
                T candidate = gen.next(new SplittableRandom(shrinkRandom.nextLong()), s);
                Throwable f = failureOf(check, candidate);
                if (f != null) {
                    smallest = candidate;
                    smallestFailure = f;
                    smallestSize = s;
                    break search;
                }
            }
        }
        String message = "property falsified on try " + tryNo + " of " + runTries
                + " (seed " + runSeed + "; replay with -D" + SEED_PROPERTY + "=" + runSeed + ")\n"
                + "smallest failing sample found (size " + smallestSize + "):\n  " + smallest + "\n"
                + "  fails with: " + describe(smallestFailure) + "\n"
                + "first failing sample (size " + size + "):\n  " + value + "\n"
                + "  fails with: " + describe(failure);
        return new AssertionError(message, smallestFailure);
    }

    private static <T> Throwable failureOf(Consumer<? super T> check, T value) {
        try {
            check.accept(value);
            return null;
        } catch (OutOfMemoryError e) {
            throw e;
        } catch (Throwable t) {
            return t;
        }
    }

    private static String describe(Throwable t) {
        String msg = String.valueOf(t.getMessage());
        return t.getClass().getName() + ": " + msg.lines().findFirst().orElse("");
    }
}
