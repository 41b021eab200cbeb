package io.gpusched.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the scheduler orders and treats a job beyond what it needs: its priority, the GPUs it is
 * pinned to, whether it may be preempted, what its timeout does, its name and what it runs after.
 * {@link #DEFAULT} is what a line without these attributes gets.
 *
 * @param priority higher runs first; 0 by default, negative allowed, within ±{@link #MAX_PRIORITY}
 * @param gpuIds the GPUs it may use, each a canonical decimal index ({@code "2"}, not {@code "02"}) or
 *     a device UUID matching {@link #GPU_UUID} ({@code "GPU-8f2c..."}, {@code "MIG-..."}), distinct, at
 *     most {@link JobsFileParser#MAX_GPUS}; empty means any GPU
 * @param preemptible whether a higher-priority job that has waited long may stop it (it is then
 *     requeued, its attempt count unchanged)
 * @param onTimeout what reaching its {@code timeout} does
 * @param name the name other jobs' {@code after} refer to it by
 * @param after the jobs it waits for: those that must succeed first, then those that may end either
 *     way, each group in the order written (a jobs-file block names each group under one key, so this
 *     order is the one {@link JobSpec#toLine()} can write back); never its own name
 */
public record Scheduling(int priority, List<String> gpuIds, boolean preemptible, OnTimeout onTimeout,
                         Optional<String> name, List<Dependency> after) {
    /** The largest priority, and the negated smallest. */
    public static final int MAX_PRIORITY = 1_000_000;
    /**
     * What a name may be: letters, digits, {@code _ . -}, starting with a letter or digit, 1–64 of them,
     * and not a bare word of the attribute block ({@code cancel}, {@code preemptible}, {@code tty}: the
     * {@linkplain Attribute#bare() bare} rows of {@link Attribute}'s table, in any case): in
     * {@code [after=prep,cancel]} the comma is a separator written by mistake, not a second name.
     */
    public static final Pattern NAME = Pattern.compile("(?!(?i:" + String.join("|",
            Attribute.bareWords().stream().map(Pattern::quote).toList()) + ")\\z)[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    /** A device UUID as {@code nvidia-smi -L} prints it: {@code GPU-} or {@code MIG-}, then hex digits and dashes. */
    public static final Pattern GPU_UUID = Pattern.compile("(?:GPU|MIG)-[0-9A-Fa-f][0-9A-Fa-f-]*");
    private static final Pattern GPU_INDEX = Pattern.compile("0|[1-9][0-9]{0,9}");
    /** Priority 0, any GPU, not preemptible, a timeout fails it, no name, no dependencies. */
    public static final Scheduling DEFAULT = new Scheduling(0, List.of(), false, OnTimeout.FAIL, Optional.empty(), List.of());

    /**
     * Validates the fields and copies the lists.
     *
     * @param priority see {@link #priority()}
     * @param gpuIds see {@link #gpuIds()}; each an index or a UUID, distinct
     * @param preemptible see {@link #preemptible()}
     * @param onTimeout see {@link #onTimeout()}
     * @param name see {@link #name()}; matching {@link #NAME}
     * @param after see {@link #after()}, in any order (it is kept stably sorted: those that need
     *     success first); each name at most once, and not {@code name}
     */
    public Scheduling {
        Objects.requireNonNull(onTimeout, "onTimeout");
        Objects.requireNonNull(name, "name");
        gpuIds = List.copyOf(gpuIds);
        after = successFirst(after);
        if (priority < -MAX_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be within ±" + MAX_PRIORITY + ", got " + priority);
        }
        if (gpuIds.size() > JobsFileParser.MAX_GPUS) {
            throw new IllegalArgumentException("at most " + JobsFileParser.MAX_GPUS + " gpuIds, got " + gpuIds.size());
        }
        for (String id : gpuIds) {
            if (!isGpuIndex(id) && !GPU_UUID.matcher(id).matches()) {
                throw new IllegalArgumentException("not a GPU index or UUID: '" + id + "'");
            }
        }
        if (gpuIds.stream().distinct().count() != gpuIds.size()) {
            throw new IllegalArgumentException("gpuIds must be distinct, got " + gpuIds);
        }
        name.ifPresent(n -> {
            if (!NAME.matcher(n).matches()) {
                throw new IllegalArgumentException("not a job name: '" + n + "'");
            }
        });
        if (after.stream().map(Dependency::name).distinct().count() != after.size()) {
            throw new IllegalArgumentException("after names a job twice: " + after);
        }
        if (name.isPresent() && after.stream().anyMatch(d -> d.name().equals(name.get()))) {
            throw new IllegalArgumentException("a job cannot wait for itself: " + name.get());
        }
    }

    /** The dependencies that need success, then the others, each in their given order. */
    private static List<Dependency> successFirst(List<Dependency> after) {
        List<Dependency> sorted = new ArrayList<>(after.size());
        after.stream().filter(Dependency::needsSuccess).forEach(sorted::add);
        after.stream().filter(d -> !d.needsSuccess()).forEach(sorted::add);
        return List.copyOf(sorted);
    }

    /** Canonical decimal (no sign, no leading zero) within int range. */
    static boolean isGpuIndex(String id) {
        return GPU_INDEX.matcher(id).matches() && (id.length() < 10 || Long.parseLong(id) <= Integer.MAX_VALUE);
    }

    /** @return whether the job is pinned to some GPUs */
    public boolean pinned() {
        return !gpuIds.isEmpty();
    }

    /**
     * How many GPUs a job gets that does not say {@code gpus=}: every GPU it pins, else one. The one rule
     * for pins, as mgpu's {@code --gpu-ids 0,1} means them (both GPUs, so {@code torchrun
     * --nproc_per_node=2} sees two); {@code gpus=K} below that picks K of the pinned GPUs, and a share
     * ({@code gpus=0.5}) is one of them. A line's {@code gpus} is written out only where it differs.
     *
     * @return the number of {@link #gpuIds()}, or 1 when there are none
     */
    public int gpusByDefault() {
        return pinned() ? gpuIds.size() : 1;
    }

    /** What reaching a job's {@code timeout} does. */
    public enum OnTimeout {
        /** The job ends as timed out (the default). */
        FAIL,
        /** The job is stopped and queued again at the end of the queue: a time slice, not a failure. */
        REQUEUE
    }

    /**
     * One job another waits for.
     *
     * @param name the awaited job's name
     * @param needsSuccess true ({@code after=}, {@code after-ok=}): the waiting job runs only if this one
     *     ended ok, and otherwise ends as {@code dependency_failed}; false ({@code after-any=}): it runs
     *     once this one ended, however
     */
    public record Dependency(String name, boolean needsSuccess) {
        /**
         * @param name see {@link #name()}; matching {@link Scheduling#NAME}
         * @param needsSuccess see {@link #needsSuccess()}
         */
        public Dependency {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("not a job name: '" + name + "'");
            }
        }
    }
}
