package io.gpusched.policy;

import io.gpusched.jobs.Scheduling;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Whether a job's {@code after} dependencies let it run: it waits while any is unfinished, never runs
 * ({@code dependency_failed}) when one it needs to succeed did not or is unknown, and may run once all
 * are settled. Pure: names are learned as jobs are seen (the newest job of a name wins), and what
 * became of each named job comes from the caller. Remembers at most {@link #REMEMBERED} names of each
 * owner's ended jobs besides those of jobs not ended, so a months-long run's map stays bounded; an
 * owner's oldest are forgotten first, and only to make room for a newer of theirs: one map shared by
 * every owner let a user who named 10,000 jobs
 * forget everyone else's names, so another user's job waiting {@code after=} her own running job
 * ended {@code dependency_failed} ("no job of that name is known").
 *
 * <p>Names belong to their owner: a job's {@code after=} names only its owner's jobs. On a shared
 * daemon another user's job of the same name would otherwise fail a user's job (by failing itself),
 * release it early, or hold it back, which is acting on a job that is not theirs. The forms without an
 * owner are for a queue of one owner (a jobs file, a replay).
 */
public final class Dependencies {
    /** The most names remembered of each owner. */
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

    /** Each owner's names, oldest first (past {@link #REMEMBERED}, the oldest of ended jobs are forgotten). */
    private final Map<String, Map<String, String>> keysByOwner = new java.util.HashMap<>();

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
     * Learns a job's name among its owner's, every job of that owner taken as ended: past
     * {@link #REMEMBERED} names the owner's oldest is forgotten.
     *
     * @param owner who the job runs for
     * @param name its name
     * @param key its key
     */
    public void learn(String owner, String name, String key) {
        learn(owner, name, key, k -> false);
    }

    /**
     * Learns a job's name among its owner's. Past {@link #REMEMBERED} names the owner's oldest names of
     * ended jobs are forgotten; a name whose job is {@code live} never is, as a job may still wait
     * {@code after=} it: forgetting it failed every such job, "no job of that name is known" (a
     * {@code prep} job and 10,000 named jobs after it failed them all once the 10,001st was named). The
     * names kept past the bound are so bounded by the owner's jobs that have not ended, which the queue's
     * caps bound. Each call looks at no more than two of the oldest names: O(1).
     *
     * @param owner who the job runs for
     * @param name its name
     * @param key its key
     * @param live whether the job of a key has not ended (pending, held or running)
     */
    public void learn(String owner, String name, String key, Predicate<String> live) {
        Map<String, String> names = keysByOwner.computeIfAbsent(owner, o -> new LinkedHashMap<>());
        if (key.equals(names.get(name))) {
            return; // known already: the queue's names are learned again each time it changes
        }
        // A name of a newer job goes to the newest end: the oldest names are the first forgotten.
        boolean known = names.remove(name) != null;
        names.put(name, key);
        if (known) {
            return; // no more names than before
        }
        for (int look = 0; look < 2 && names.size() > REMEMBERED; look++) {
            Iterator<Map.Entry<String, String>> oldest = names.entrySet().iterator();
            Map.Entry<String, String> e = oldest.next();
            oldest.remove();
            if (live.test(e.getValue())) {
                // Not forgotten: looked at again once the names older than the ones after it have been.
                names.put(e.getKey(), e.getValue());
            }
        }
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
        return Optional.ofNullable(key(owner, name));
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
            String key = key(owner, d.name());
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
     * The key of a name among its owner's. Two lookups, no object made: every waiting job's dependencies
     * are looked up each plan (a joined string was a new string to build and hash each time; these hash
     * the strings' cached hashes).
     */
    private String key(String owner, String name) {
        Map<String, String> names = keysByOwner.get(owner);
        return names == null ? null : names.get(name);
    }

    private static String who(Known k, Scheduling.Dependency d) {
        return "job " + k.no() + " (" + d.name() + ")";
    }
}
