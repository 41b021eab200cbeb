package io.gpusched.policy;

import io.gpusched.jobs.Scheduling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Whether a job's {@code after} dependencies let it run: it waits while any is unfinished, never runs
 * ({@code dependency_failed}) when one it needs to succeed did not or is unknown, and may run once all
 * are settled. Pure: names are learned as jobs are seen (the newest job of a name wins), and what
 * became of each named job comes from the caller. Remembers at most {@link #REMEMBERED} names, so a
 * months-long run's map stays bounded; the oldest are forgotten first.
 *
 * <p>Names belong to their owner: a job's {@code after=} names only its owner's jobs. On a shared
 * daemon another user's job of the same name would otherwise fail a user's job (by failing itself),
 * release it early, or hold it back, which is acting on a job that is not theirs. The forms without an
 * owner are for a queue of one owner (a jobs file, a replay).
 */
public final class Dependencies {
    /** The most names remembered. */
    public static final int REMEMBERED = 10_000;

    /** What a dependency's job is now. */
    public record Known(int no, Optional<String> endedStatus) {
        /**
         * @param no its display number
         * @param endedStatus its terminal status as the journal spells it ({@code ok}, {@code failed}, ...);
         *     empty while it has not ended
         */
        public Known {
            java.util.Objects.requireNonNull(endedStatus, "endedStatus");
        }
    }

    /** What a job's dependencies say now. */
    public sealed interface Verdict permits Ready, Waiting, Failed {
    }

    /** Every dependency is settled as the job needs: it may run. */
    public record Ready() implements Verdict {
    }

    /**
     * A dependency has not ended yet.
     *
     * @param reason e.g. {@code after job 3 (prep)}
     */
    public record Waiting(String reason) implements Verdict {
    }

    /**
     * A dependency it needs to succeed did not, or no job of its name is known: it never runs.
     *
     * @param reason e.g. {@code job 3 (prep) ended failed; use after-any= to run after it however it ends}
     */
    public record Failed(String reason) implements Verdict {
    }

    private final Map<Scoped, String> keysByName = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Scoped, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** An empty set of names. */
    public Dependencies() {
    }

    /**
     * Learns a job's name, in a queue of one owner.
     *
     * @param name its name
     * @param key its key
     */
    public void learn(String name, String key) {
        learn("", name, key);
    }

    /**
     * Learns a job's name among its owner's.
     *
     * @param owner who the job runs for
     * @param name its name
     * @param key its key
     */
    public void learn(String owner, String name, String key) {
        Scoped scoped = new Scoped(owner, name);
        // Re-inserting moves a name to the newest end, so the oldest names are the first forgotten.
        keysByName.remove(scoped);
        keysByName.put(scoped, key);
    }

    /**
     * @param name a name, in a queue of one owner
     * @return the key of the newest job of that name, if one is known
     */
    public Optional<String> keyOf(String name) {
        return keyOf("", name);
    }

    /**
     * @param owner whose jobs to look among
     * @param name a name
     * @return the key of the newest of {@code owner}'s jobs of that name, if one is known
     */
    public Optional<String> keyOf(String owner, String name) {
        return Optional.ofNullable(keysByName.get(new Scoped(owner, name)));
    }

    /**
     * @param after a job's dependencies, in a queue of one owner
     * @param lookup what became of the job of a key
     * @return whether it may run, must wait, or will never run
     */
    public Verdict check(List<Scheduling.Dependency> after, Function<String, Known> lookup) {
        return check("", after, lookup);
    }

    /**
     * @param owner who the job runs for: its names are looked up among that owner's jobs only
     * @param after the job's dependencies
     * @param lookup what became of the job of a key
     * @return whether it may run, must wait, or will never run
     */
    public Verdict check(String owner, List<Scheduling.Dependency> after, Function<String, Known> lookup) {
        // Asked of every waiting job with dependencies each round: the words are made only for a verdict
        // that has them, and only once it is known which.
        List<String> waiting = null;
        for (Scheduling.Dependency d : after) {
            String key = keysByName.get(new Scoped(owner, d.name()));
            if (key == null) {
                return new Failed("after=" + d.name() + ": no job of that name is known");
            }
            Known k = lookup.apply(key);
            if (k.endedStatus().isEmpty()) {
                if (waiting == null) {
                    waiting = new ArrayList<>(after.size());
                }
                waiting.add(who(k, d));
            } else if (d.needsSuccess() && !"ok".equals(k.endedStatus().get())) {
                return new Failed(who(k, d) + " ended " + k.endedStatus().get()
                        + "; use after-any= to run after it however it ends");
            }
        }
        return waiting == null ? READY : new Waiting("after " + String.join(", ", waiting));
    }

    private static final Ready READY = new Ready();

    /**
     * A name among its owner's: one map for every owner, and no two owners' names meet. A pair, not the
     * two joined in one string: every waiting job's dependencies are looked up each plan, and a joined
     * string was a new string to build and hash each time, where a pair hashes its parts' cached hashes.
     */
    private record Scoped(String owner, String name) {
        // Written out: a record's generated ones go through method handles, and these are asked for
        // each waiting job's every dependency each plan.
        @Override
        public int hashCode() {
            return 31 * owner.hashCode() + name.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Scoped s && name.equals(s.name) && owner.equals(s.owner);
        }
    }

    private static String who(Known k, Scheduling.Dependency d) {
        return "job " + k.no() + " (" + d.name() + ")";
    }
}
