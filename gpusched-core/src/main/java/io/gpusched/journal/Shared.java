package io.gpusched.journal;

import java.util.Map;
import java.util.TreeMap;

/**
 * One copy of a value many submissions repeat, as a small set of recent ones: a user queueing 100,000
 * jobs sends the same environment, directory and name with each, and without this the journal's fold
 * held 100,000 equal copies (an environment alone is a sorted map, its entries and its strings: hundreds
 * of bytes to kilobytes a job). Equal values are interchangeable here: every one is immutable. Safe from
 * any thread (a slot holds an immutable value; a race only costs a missed share).
 */
final class Shared {
    /** How many recent values of each kind are kept: a few users submitting at once still share. */
    private static final int SLOTS = 8;
    private static final Object[] ENVS = new Object[SLOTS];
    private static final Object[] STRINGS = new Object[SLOTS];
    private static int nextEnv;
    private static int nextString;

    private Shared() {
    }

    /**
     * @param env an environment, or none
     * @return none, or an unmodifiable copy sorted by name, wrapped: the same object (the Optional too) as
     *     a recent equal one's
     */
    @SuppressWarnings("unchecked")
    static java.util.Optional<Map<String, String>> env(java.util.Optional<Map<String, String>> env) {
        if (env.isEmpty()) {
            return env;
        }
        for (Object o : ENVS) {
            if (o != null && ((java.util.Optional<Map<String, String>>) o).get().equals(env.get())) {
                return (java.util.Optional<Map<String, String>>) o;
            }
        }
        java.util.Optional<Map<String, String>> copy = java.util.Optional.of(
                java.util.Collections.unmodifiableMap(new TreeMap<>(env.get())));
        synchronized (ENVS) {
            ENVS[nextEnv] = copy;
            nextEnv = (nextEnv + 1) % SLOTS;
        }
        return copy;
    }

    /**
     * @param s a string
     * @return it, or a recent equal one
     */
    static String string(String s) {
        for (Object o : STRINGS) {
            if (o != null && o.equals(s)) {
                return (String) o;
            }
        }
        synchronized (STRINGS) {
            STRINGS[nextString] = s;
            nextString = (nextString + 1) % SLOTS;
        }
        return s;
    }
}
