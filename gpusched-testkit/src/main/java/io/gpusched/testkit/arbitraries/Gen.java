package io.gpusched.testkit.arbitraries;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * A generator of random test values: a pure function of a random source and a size hint. Generators
 * are values and compose with {@link #map}, {@link #flatMap}, {@link #filter} and the static
 * combinators, so domain generators ({@link GpuArbitraries}, {@link JobSpecArbitraries}) are built
 * from small ones and can be reused by any test.
 *
 * <p>The size hint runs from 1 to {@link #MAX_SIZE}; {@link Property} starts small and grows it, so
 * early tries (and shrunk counterexamples) have short lists and small numbers where a generator
 * chooses to honour it.
 *
 * @param <T> the generated type
 *
 * <p>Why one long file: the generator interface and its combinators belong together, as one small library
 * the property suites read.
 */
@FunctionalInterface
public interface Gen<T> {
    /** The largest size hint {@link Property} passes. */
    int MAX_SIZE = 100;

    /**
     * Draws one value.
     *
     * @param random the only source of randomness; the same state must give the same value
     * @param size a hint in [1, {@link #MAX_SIZE}] for how large the value may be
     * @return a value
     */
    T next(RandomGenerator random, int size);

    /**
     * @param f a pure function
     * @param <R> the mapped type
     * @return a generator of {@code f} applied to this generator's values
     */
    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return (random, size) -> f.apply(next(random, size));
    }

    /**
     * @param f picks the next generator from a value of this one
     * @param <R> the resulting type
     * @return a generator whose values depend on a value of this one
     */
    default <R> Gen<R> flatMap(Function<? super T, ? extends Gen<? extends R>> f) {
        return (random, size) -> f.apply(next(random, size)).next(random, size);
    }

    /**
     * Keeps only values that satisfy {@code p}, drawing again otherwise. Use for rare exclusions
     * only: after 10,000 rejections in a row it gives up, because the generator is then wrong.
     *
     * @param p the condition
     * @return the filtered generator
     * @throws IllegalStateException when drawing, if {@code p} rejects too often
     */
    default Gen<T> filter(Predicate<? super T> p) {
        return (random, size) -> {
            for (int i = 0; i < 10_000; i++) {
                T value = next(random, size);
                if (p.test(value)) {
                    return value;
                }
            }
            throw new IllegalStateException("filter rejected 10000 values in a row; generate valid values directly");
        };
    }

    /**
     * @param other a second generator
     * @param combine joins one value of each
     * @param <U> the other type
     * @param <R> the combined type
     * @return a generator of combined values
     */
    default <U, R> Gen<R> with(Gen<U> other, BiFunction<? super T, ? super U, ? extends R> combine) {
        return (random, size) -> combine.apply(next(random, size), other.next(random, size));
    }

    /**
     * @param value the only value
     * @param <T> its type
     * @return a generator that always gives {@code value}
     */
    static <T> Gen<T> constant(T value) {
        return (random, size) -> value;
    }

    /**
     * Longs in {@code [min, max]}, uniform except that each bound comes up about one time in twenty,
     * because bounds are where arithmetic goes wrong.
     *
     * @param min the smallest value
     * @param max the largest value, at least {@code min}
     * @return the generator
     */
    static Gen<Long> longs(long min, long max) {
        if (max < min) {
            throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
        }
        return (random, size) -> {
            int edge = random.nextInt(40);
            if (edge == 0) {
                return min;
            }
            if (edge == 1) {
                return max;
            }
            if (max == Long.MAX_VALUE) {
                // nextLong's bound is exclusive, so shift the range down by one to reach MAX_VALUE.
                return min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min - 1, max) + 1;
            }
            return random.nextLong(min, max + 1);
        };
    }

    /**
     * @param min the smallest value
     * @param max the largest value, at least {@code min}
     * @return ints in {@code [min, max]}, bounds favoured as by {@link #longs}
     */
    static Gen<Integer> ints(int min, int max) {
        return longs(min, max).map(Long::intValue);
    }

    /**
     * Longs in {@code [min, max]} spread evenly over orders of magnitude, so small and huge values
     * are both common (a uniform draw from [1, 10^6] is almost never below 1,000).
     *
     * @param min the smallest value, at least 1
     * @param max the largest value, at least {@code min}
     * @return the generator
     */
    static Gen<Long> logLongs(long min, long max) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, got [" + min + ", " + max + "]");
        }
        double lo = Math.log(min);
        double hi = Math.log(max + 1.0);
        return (random, size) -> {
            long v = (long) Math.floor(Math.exp(lo + random.nextDouble() * (hi - lo)));
            return Math.max(min, Math.min(max, v));
        };
    }

    /** @return true or false, evenly */
    static Gen<Boolean> booleans() {
        return (random, size) -> random.nextBoolean();
    }

    /**
     * @param percent how often, in [0, 100]
     * @return true about {@code percent} percent of the time
     */
    static Gen<Boolean> chance(int percent) {
        return (random, size) -> random.nextInt(100) < percent;
    }

    /**
     * @param values the choices, not empty
     * @param <T> their type
     * @return one of them, evenly
     */
    @SafeVarargs
    static <T> Gen<T> elements(T... values) {
        // element by element, so the generic array itself never escapes, as @SafeVarargs promises
        List<T> copy = new ArrayList<>(values.length);
        for (T v : values) {
            copy.add(v);
        }
        return elements(copy);
    }

    /**
     * @param values the choices, not empty
     * @param <T> their type
     * @return one of them, evenly
     */
    static <T> Gen<T> elements(List<T> values) {
        List<T> copy = List.copyOf(values);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("no values to choose from");
        }
        return (random, size) -> copy.get(random.nextInt(copy.size()));
    }

    /**
     * @param gens the generators to choose from, not empty
     * @param <T> the common type
     * @return a value of one of them, each chosen evenly
     */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        // element by element, so the generic array itself never escapes, as @SafeVarargs promises
        List<Gen<? extends T>> list = new ArrayList<>(gens.length);
        for (Gen<? extends T> g : gens) {
            list.add(g);
        }
        List<Gen<? extends T>> copy = List.copyOf(list);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("no generators to choose from");
        }
        return (random, size) -> copy.get(random.nextInt(copy.size())).next(random, size);
    }

    /**
     * Starts a weighted choice: {@code Gen.<Long>weighted().add(3, small).add(1, huge).build()}.
     *
     * @param <T> the common type
     * @return an empty builder
     */
    static <T> Weighted<T> weighted() {
        return new Weighted<>();
    }

    /**
     * Lists whose length lies in {@code [min, max]} and grows with the size hint.
     *
     * @param element generates each element
     * @param min the shortest length
     * @param max the longest length
     * @param <T> the element type
     * @return the generator
     */
    static <T> Gen<List<T>> listOf(Gen<? extends T> element, int min, int max) {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("need 0 <= min <= max, got [" + min + ", " + max + "]");
        }
        return (random, size) -> {
            int cap = min + (int) Math.ceil((max - min) * (double) size / MAX_SIZE);
            int n = random.nextInt(min, cap + 1);
            List<T> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(element.next(random, size));
            }
            return List.copyOf(list);
        };
    }

    /**
     * Strings made of pieces (single characters or longer fragments), with a number of pieces in
     * {@code [min, max]} that grows with the size hint.
     *
     * @param piece generates each piece
     * @param min fewest pieces
     * @param max most pieces
     * @return the generator
     */
    static Gen<String> strings(Gen<String> piece, int min, int max) {
        return listOf(piece, min, max).map(parts -> String.join("", parts));
    }

    /**
     * A weighted choice among generators.
     *
     * @param <T> the common type
     */
    final class Weighted<T> {
        private final List<Gen<? extends T>> gens = new ArrayList<>();
        private final List<Integer> weights = new ArrayList<>();

        private Weighted() {
        }

        /**
         * @param weight relative frequency, at least 1
         * @param gen the generator
         * @return this builder
         */
        public Weighted<T> add(int weight, Gen<? extends T> gen) {
            if (weight < 1) {
                throw new IllegalArgumentException("weight must be >= 1, got " + weight);
            }
            gens.add(Objects.requireNonNull(gen, "gen"));
            weights.add(weight);
            return this;
        }

        /** @return the generator; later calls to {@link #add} do not change it */
        public Gen<T> build() {
            List<Gen<? extends T>> g = List.copyOf(gens);
            int[] cumulative = new int[weights.size()];
            int total = 0;
            for (int i = 0; i < cumulative.length; i++) {
                total += weights.get(i);
                cumulative[i] = total;
            }
            if (total == 0) {
                throw new IllegalStateException("no generators added");
            }
            int sum = total;
            return (random, size) -> {
                int pick = random.nextInt(sum);
                int i = 0;
                while (cumulative[i] <= pick) {
                    i++;
                }
                return g.get(i).next(random, size);
            };
        }
    }
}
