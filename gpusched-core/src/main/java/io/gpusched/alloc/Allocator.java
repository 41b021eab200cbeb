package io.gpusched.alloc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The placement rules of gpusched, as one pure function: GPU views and a request in, a
 * {@link Placement} out. No clock, no I/O, no state beyond the policy; the same input always gives
 * the same output.
 *
 * <ol>
 *   <li><b>Infeasible</b> first: too few allowed GPUs (allowed by {@code --gpus} and, for a pinned job,
 *       among its {@code gpu-ids}), or (declared) too few whose <em>total</em> memory holds declaration +
 *       margin. Paused and reserved GPUs count here: pausing and reserving only ever block. So does an
 *       unhealthy GPU of unknown size (total 0: lost before it was ever read), as if it were large enough.</li>
 *   <li>Each GPU then passes the filters in order: allowed, pinned, healthy, not paused, (with {@code --max-util}) not busier than the
 *       limit, not reserved
 *       for another job, not held by an undeclared job of
 *       ours, (with {@code --exclusive}) no job of ours, and either fully idle (undeclared request) or
 *       effective headroom ≥ declaration + margin (declared request), or ≥ the share of that GPU's own total
 *       ({@link GpuShare}, no margin).</li>
 *   <li>Survivors are ordered: declared requests best-fit (least headroom left after the job first, ties by
 *       index) to keep large holes for large jobs; undeclared requests lowest index first. The first N
 *       are taken and returned in index order.</li>
 * </ol>
 */
public final class Allocator {
    private static final Comparator<GpuFilter.Load> LOWEST_INDEX = Comparator.comparingInt(GpuFilter.Load::index);

    private final PlacementPolicy policy;
    private final List<GpuFilter> filters;

    /** @param policy margin, idle threshold, spike buffer, exclusivity and allowed GPUs */
    public Allocator(PlacementPolicy policy) {
        this.policy = policy;
        List<GpuFilter> chain = new ArrayList<>();
        chain.add(GpuFilter.allowed(policy));
        chain.add(GpuFilter.PINNED);
        chain.add(GpuFilter.HEALTHY);
        chain.add(GpuFilter.NOT_PAUSED);
        if (policy.maxUtilPercent().isPresent()) {
            chain.add(GpuFilter.notBusy(policy));
        }
        chain.add(GpuFilter.NOT_RESERVED);
        chain.add(GpuFilter.NO_UNDECLARED_TENANT);
        if (policy.exclusive()) {
            chain.add(GpuFilter.EXCLUSIVE);
        }
        chain.add(GpuFilter.FULLY_IDLE);
        chain.add(GpuFilter.ENOUGH_HEADROOM);
        this.filters = List.copyOf(chain);
    }

    /** @return the policy this allocator applies */
    public PlacementPolicy policy() {
        return policy;
    }

    /**
     * Decides where a job goes now.
     *
     * @param request the job's per-GPU declaration and GPU count
     * @param gpus every GPU the backend reports, with our jobs on each; indices must be unique
     * @return placed (sorted indices), blocked (with a reason per GPU), or infeasible
     */
    public Placement place(Request request, List<GpuView> gpus) {
        return place(request, gpus, Set.of());
    }

    /**
     * Decides where a job goes now, keeping it off GPUs reserved for another job.
     *
     * @param request the job's per-GPU declaration, GPU count and pinning
     * @param gpus every GPU the backend reports, with our jobs on each; indices must be unique
     * @param reserved GPUs this job may not take now (reserved for a job that has waited long); they
     *     still count for feasibility
     * @return placed (sorted indices), blocked (with a reason per GPU), or infeasible
     */
    public Placement place(Request request, List<GpuView> gpus, Set<Integer> reserved) {
        checkUnique(gpus);
        Optional<String> infeasible = infeasibleReason(request, gpus);
        if (infeasible.isPresent()) {
            return new Placement.Infeasible(infeasible.get());
        }
        GpuFilter.Need need = need(request, reserved);
        List<GpuFilter.Load> eligible = new ArrayList<>();
        List<Rejection> rejections = new ArrayList<>();
        // Judge GPUs in index order, so the rejections and the blocked reason do not depend on the
        // order in which the backend happened to list them.
        for (GpuView view : byIndex(gpus)) {
            GpuFilter.Load load = load(view);
            Optional<Rejection> rejected = firstRejection(load, need);
            if (rejected.isPresent()) {
                rejections.add(rejected.get());
            } else {
                eligible.add(load);
            }
        }
        if (eligible.size() < request.gpus()) {
            return new Placement.Blocked(BlockedReason.describe(request, need, eligible.size(), rejections), rejections);
        }
        // Best fit is the least left over after the job: for a fixed declaration that is the smallest
        // headroom; for a share, whose MiB differs per GPU, the headroom less that GPU's share.
        eligible.sort(need.declared()
                ? Comparator.<GpuFilter.Load>comparingLong(l -> l.headroomMib() - need.mibOn(l)).thenComparingInt(GpuFilter.Load::index)
                : LOWEST_INDEX);
        return new Placement.Placed(eligible.subList(0, request.gpus()).stream()
                .map(GpuFilter.Load::index).sorted().toList());
    }

    /**
     * Whether a request could never be placed, even on empty allowed GPUs.
     *
     * @param request the request
     * @param gpus the machine's GPUs (only their index and total matter here)
     * @return the reason when infeasible
     */
    public Optional<String> infeasibleReason(Request request, List<GpuView> gpus) {
        // Counted with no list or stream: asked at every placement, and nearly always feasible.
        int n = request.gpus();
        long need = request.vramMib().isPresent() ? request.vramMib().getAsLong() + policy.marginMib() : 0;
        int allowed = 0;
        int fitting = 0;
        long largest = 0;
        for (GpuView g : gpus) {
            if (policy.allows(g.index()) && request.mayUse(g.index())) {
                allowed++;
                // A GPU lost before it was ever read has no known size (0): it may hold the job once it
                // is back, so it blocks (unhealthy) rather than failing the job for good.
                boolean sizeUnknown = !g.healthy() && g.totalMib() == 0;
                fitting += g.totalMib() >= need || sizeUnknown ? 1 : 0;
                largest = Math.max(largest, g.totalMib());
            }
        }
        if (allowed < n) {
            String of = request.pinned().isPresent() ? " of its gpu-ids " : " ";
            String where = policy.allowedGpus().isPresent() ? " allowed by --gpus" : " present";
            // A pinned index the machine lacks is named, with the ones it has: "only 0 of its gpu-ids"
            // alone left the user to find out which of hers was wrong and what to write instead.
            String missing = "";
            if (request.pinned().isPresent()) {
                java.util.TreeSet<Integer> absent = new java.util.TreeSet<>(request.pinned().get());
                StringBuilder here = new StringBuilder();
                for (GpuView g : gpus) {
                    absent.remove(g.index());
                    here.append(here.length() == 0 ? "" : ",").append(g.index());
                }
                if (!absent.isEmpty()) {
                    missing = " (no GPU " + absent.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                            + " here; this machine has " + (here.length() == 0 ? "no GPU" : "GPUs " + here) + ")";
                }
            }
            return Optional.of("needs " + plural(n, "GPU") + " but only " + allowed + of
                    + (allowed == 1 ? "is" : "are") + where + missing);
        }
        if (fitting < n) { // only a declared request: with none, every allowed GPU fits
            return Optional.of("needs " + plural(n, "GPU") + " with ≥ " + need + " MiB (vram " + request.vramMib().getAsLong()
                    + " + margin " + policy.marginMib() + "); " + (fitting == 0
                    ? "the largest allowed GPU has " + largest + " MiB"
                    : "only " + fitting + " allowed " + (fitting == 1 ? "GPU has" : "GPUs have") + " that much"));
        }
        return Optional.empty();
    }

    /**
     * @param view a GPU
     * @return its effective headroom in MiB under this policy's spike buffer (negative when
     *     over-committed)
     */
    public long headroomMib(GpuView view) {
        return Headroom.effective(view, policy.spikeBuffer());
    }

    private GpuFilter.Need need(Request request, Set<Integer> reserved) {
        if (request.share().isPresent()) {
            // The share is the whole reservation: adding the margin would keep two halves off one card.
            return new GpuFilter.Need(true, 0, policy.idleThresholdMib(), request, reserved);
        }
        return request.vramMib().isPresent()
                ? new GpuFilter.Need(true, request.vramMib().getAsLong() + policy.marginMib(), policy.idleThresholdMib(),
                        request, reserved)
                : new GpuFilter.Need(false, 0, policy.idleThresholdMib(), request, reserved);
    }

    /** The GPUs in index order: as given when they are (the backends list them so), else a sorted copy. */
    private static List<GpuView> byIndex(List<GpuView> gpus) {
        for (int i = 1; i < gpus.size(); i++) {
            if (gpus.get(i - 1).index() > gpus.get(i).index()) {
                List<GpuView> sorted = new ArrayList<>(gpus);
                sorted.sort(Comparator.comparingInt(GpuView::index));
                return sorted;
            }
        }
        return gpus;
    }

    private GpuFilter.Load load(GpuView view) {
        boolean undeclared = false;
        for (Tenant t : view.tenants()) {
            undeclared |= !t.declared();
        }
        return new GpuFilter.Load(view, Headroom.effectiveExternal(view, policy.spikeBuffer()),
                Headroom.effective(view, policy.spikeBuffer()), !view.tenants().isEmpty(), undeclared);
    }

    private Optional<Rejection> firstRejection(GpuFilter.Load load, GpuFilter.Need need) {
        for (GpuFilter f : filters) {
            Optional<Rejection> r = f.check(load, need);
            if (r.isPresent()) {
                return r;
            }
        }
        return Optional.empty();
    }

    private static void checkUnique(List<GpuView> gpus) {
        Set<Integer> seen = new HashSet<>();
        for (GpuView g : gpus) {
            if (!seen.add(g.index())) {
                throw new IllegalArgumentException("duplicate GPU index " + g.index());
            }
        }
    }

    static String plural(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
