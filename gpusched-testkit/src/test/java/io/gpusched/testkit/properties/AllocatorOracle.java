package io.gpusched.testkit.properties;

import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.testkit.arbitraries.AllocationCase;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A second, deliberately plain implementation of DESIGN §4 ("Effective headroom", "Placement",
 * "Infeasible"), written from the text and not from the allocator's code. Buffered amounts use exact
 * decimal arithmetic, so {@code ⌈1000 × 1.10⌉} is 1100 as the text says.
 */
final class AllocatorOracle {
    /** What the oracle expects: {@code placed} set, or blocked, or infeasible. */
    record Expected(boolean infeasible, Optional<List<Integer>> placed) {
    }

    private AllocatorOracle() {
    }

    static long buffered(long mib, double spikeBuffer) {
        BigDecimal factor = BigDecimal.ONE.add(BigDecimal.valueOf(spikeBuffer));
        return BigDecimal.valueOf(mib).multiply(factor).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    static long budget(Tenant t, double spikeBuffer) {
        if (t.declaredMib().isEmpty()) {
            return t.currentMib();
        }
        long declared = t.declaredMib().getAsLong();
        long trusted = t.peakMib() > declared ? buffered(t.peakMib(), spikeBuffer) : declared;
        return Math.max(trusted, t.currentMib());
    }

    static long externalUse(GpuView g, double spikeBuffer) {
        long ownNow = g.tenants().stream().mapToLong(Tenant::currentMib).sum();
        long othersNow = Math.max(0, g.usedMib() - ownNow);
        return Math.max(othersNow, buffered(g.externalPeaksMib(), spikeBuffer));
    }

    static long headroom(GpuView g, double spikeBuffer) {
        long budgets = g.tenants().stream().mapToLong(t -> budget(t, spikeBuffer)).sum();
        return g.totalMib() - externalUse(g, spikeBuffer) - budgets;
    }

    static boolean hasUndeclaredTenant(GpuView g) {
        return g.tenants().stream().anyMatch(t -> t.declaredMib().isEmpty());
    }

    static long perGpuNeed(Request r, PlacementPolicy p) {
        return r.vramMib().getAsLong() + p.marginMib();
    }

    static boolean eligible(GpuView g, Request r, PlacementPolicy p) {
        if (!p.allows(g.index()) || !g.healthy() || hasUndeclaredTenant(g)) {
            return false;
        }
        if (p.exclusive() && !g.tenants().isEmpty()) {
            return false;
        }
        if (r.vramMib().isEmpty()) {
            return g.tenants().isEmpty() && externalUse(g, p.spikeBuffer()) < p.idleThresholdMib();
        }
        return headroom(g, p.spikeBuffer()) >= perGpuNeed(r, p);
    }

    static boolean infeasible(AllocationCase c) {
        List<GpuView> allowed = c.gpus().stream().filter(g -> c.policy().allows(g.index())).toList();
        if (allowed.size() < c.request().gpus()) {
            return true;
        }
        if (c.request().vramMib().isEmpty()) {
            return false;
        }
        long need = perGpuNeed(c.request(), c.policy());
        return allowed.stream().filter(g -> g.totalMib() >= need).count() < c.request().gpus();
    }

    static Expected expected(AllocationCase c) {
        if (infeasible(c)) {
            return new Expected(true, Optional.empty());
        }
        double sb = c.policy().spikeBuffer();
        Comparator<GpuView> order = c.request().vramMib().isPresent()
                ? Comparator.<GpuView>comparingLong(g -> headroom(g, sb)).thenComparingInt(GpuView::index)
                : Comparator.comparingInt(GpuView::index);
        List<GpuView> candidates = c.gpus().stream().filter(g -> eligible(g, c.request(), c.policy())).sorted(order).toList();
        if (candidates.size() < c.request().gpus()) {
            return new Expected(false, Optional.empty());
        }
        return new Expected(false, Optional.of(candidates.subList(0, c.request().gpus()).stream()
                .map(GpuView::index).sorted().toList()));
    }
}
