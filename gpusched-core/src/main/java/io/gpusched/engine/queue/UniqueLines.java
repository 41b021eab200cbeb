package io.gpusched.engine.queue;

import io.gpusched.jobs.JobSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Predicate;

/**
 * For {@code unique} lines of the jobs file: the lines of the same job ({@link JobSpec#sameJobLine()}),
 * in file order, found by a unique line's position in the queue. Built once per queue list (when lines
 * join or leave, the list is another one), so a round asks only about the group of each unique line it
 * reaches instead of walking every line of the file: a lookup costs one hash probe and a walk of its
 * group up to the first line that stands, O(1) for a line that has no copy before it.
 *
 * <p>Submissions are no one's group: they are deduplicated as they are taken, per owner
 * ({@link Duplicates}). A file without a {@code unique} line costs one pass over its lines at each new
 * list and nothing per round. Immutable; loop thread only, like the queue.
 */
public final class UniqueLines {
    /** The index of a queue with no unique file line. */
    private static final UniqueLines NONE = new UniqueLines(List.of(), Map.of());

    private final List<JobSpec> jobs;
    /** Each unique file line's position to the positions of its job's file lines, in file order (shared by the group). */
    private final Map<Integer, int[]> groupOfUnique;

    private UniqueLines(List<JobSpec> jobs, Map<Integer, int[]> groupOfUnique) {
        this.jobs = jobs;
        this.groupOfUnique = groupOfUnique;
    }

    /**
     * Indexes a queue list.
     *
     * @param jobs the queue, in order
     * @param fileLine whether a job of it is a jobs-file line (else a submission, left out)
     * @return its index; an empty one, costing nothing per lookup, when no file line is {@code unique}
     */
    public static UniqueLines of(List<JobSpec> jobs, Predicate<JobSpec> fileLine) {
        boolean anyUnique = false;
        for (JobSpec j : jobs) {
            if (j.unique() && fileLine.test(j)) {
                anyUnique = true;
                break;
            }
        }
        if (!anyUnique) {
            return NONE;
        }
        // Every file line counts, unique or not: an earlier plain line of the same job stands for a unique one.
        Map<String, List<Integer>> byLine = new HashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            JobSpec j = jobs.get(i);
            if (!fileLine.test(j)) {
                continue;
            }
            byLine.computeIfAbsent(j.sameJobLine(), l -> new ArrayList<>(1)).add(i);
        }
        Map<List<Integer>, int[]> arrays = new java.util.IdentityHashMap<>();
        Map<Integer, int[]> groupOf = new HashMap<>();
        for (List<Integer> group : byLine.values()) {
            for (int p : group) {
                if (jobs.get(p).unique()) {
                    groupOf.put(p, arrays.computeIfAbsent(group, g -> g.stream().mapToInt(Integer::intValue).toArray()));
                }
            }
        }
        return new UniqueLines(jobs, Map.copyOf(groupOf));
    }

    /** @return whether no file line of the list is {@code unique}: no lookup can find anything */
    public boolean isEmpty() {
        return groupOfUnique.isEmpty();
    }

    /**
     * The first line of the file (in file order) of a unique line's job that still stands for it: one
     * not marked {@code cancel} that {@code stands} (queued, running or ended ok).
     *
     * @param position a position in the list this index was built for
     * @param stands whether a line's job stands for its job (not asked of lines marked {@code cancel})
     * @return that line's position; empty when {@code position} is no unique file line, or none of its
     *     job's lines stands
     */
    public OptionalInt firstStanding(int position, Predicate<JobSpec> stands) {
        int[] group = groupOfUnique.get(position);
        if (group == null) {
            return OptionalInt.empty();
        }
        for (int p : group) {
            JobSpec j = jobs.get(p);
            if (!j.cancel() && stands.test(j)) {
                return OptionalInt.of(p);
            }
        }
        return OptionalInt.empty();
    }
}
