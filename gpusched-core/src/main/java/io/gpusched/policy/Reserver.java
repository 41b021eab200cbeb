package io.gpusched.policy;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Headroom;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.Tenant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which GPUs the head of the queue gets reserved, and which preemptible jobs are stopped for it (steps 3
 * and 4 of {@link QueuePolicy}). Pure.
 */
final class Reserver {
    private final Allocator allocator;

    Reserver(Allocator allocator) {
        this.allocator = allocator;
    }

    /**
     * The reservation for a job that has waited long and cannot be placed: the GPUs it would get once jobs
     * being stopped are gone; else once the fewest lower-priority preemptible jobs are (their keys are
     * added to {@code preempt}); else the GPUs that will be free soonest. Empty when too few GPUs could
     * ever hold it.
     */
    Optional<Reservation> reserve(Candidate c, Duration waited, List<GpuView> views, List<Occupant> occupants,
                                  Instant now, List<String> preempt) {
        // Jobs already being stopped are as good as gone.
        List<GpuView> leaving = views;
        for (Occupant o : occupants) {
            if (o.stopping()) {
                leaving = without(leaving, o.key());
            }
        }
        if (allocator.place(c.request(), leaving) instanceof Placement.Placed p) {
            return Optional.of(new Reservation(c.key(), c.no(), p.gpus(), waited, List.of()));
        }
        List<Occupant> victims = occupants.stream()
                .filter(o -> o.preemptible() && !o.stopping() && o.priority() < c.priority())
                .sorted(Comparator.comparingInt(Occupant::priority)
                        .thenComparing(Occupant::startedAt, Comparator.reverseOrder()))
                .toList();
        List<Occupant> removed = new ArrayList<>();
        for (Occupant v : victims) {
            leaving = without(leaving, v.key());
            removed.add(v);
            if (allocator.place(c.request(), leaving) instanceof Placement.Placed p) {
                List<Integer> nos = new ArrayList<>();
                for (Occupant o : removed) {
                    if (o.gpus().stream().anyMatch(p.gpus()::contains)) {
                        preempt.add(o.key());
                        nos.add(o.no());
                    }
                }
                return Optional.of(new Reservation(c.key(), c.no(), p.gpus(), waited, nos));
            }
        }
        return soonestFree(c, waited, views, occupants, now);
    }

    /** The GPUs that could ever hold the job and will be free soonest, with the least to drain. */
    private Optional<Reservation> soonestFree(Candidate c, Duration waited, List<GpuView> views, List<Occupant> occupants,
                                              Instant now) {
        long need = c.request().vramMib().isPresent()
                ? c.request().vramMib().getAsLong() + allocator.policy().marginMib() : 0;
        List<GpuView> usable = views.stream()
                .filter(g -> allocator.policy().allows(g.index()) && c.request().mayUse(g.index()) && g.healthy()
                        && !g.paused() && g.totalMib() >= need)
                .sorted(Comparator.<GpuView, Instant>comparing(g -> freeAt(g.index(), occupants, now))
                        .thenComparingLong(g -> draining(g, allocator.policy().spikeBuffer()))
                        .thenComparingInt(GpuView::index))
                .toList();
        if (usable.size() < c.request().gpus()) {
            return Optional.empty();
        }
        List<Integer> gpus = usable.subList(0, c.request().gpus()).stream().map(GpuView::index).sorted().toList();
        return Optional.of(new Reservation(c.key(), c.no(), gpus, waited, List.of()));
    }

    private static Instant freeAt(int gpu, List<Occupant> occupants, Instant now) {
        Instant at = now;
        for (Occupant o : occupants) {
            if (o.gpus().contains(gpu) && !o.stopping()) {
                if (o.endsBy().isEmpty()) {
                    return Instant.MAX;
                }
                at = o.endsBy().get().isAfter(at) ? o.endsBy().get() : at;
            }
        }
        return at;
    }

    private static long draining(GpuView g, double spikeBuffer) {
        long sum = 0;
        for (Tenant t : g.tenants()) {
            sum += Headroom.budget(t, spikeBuffer);
        }
        return sum;
    }

    private static List<GpuView> without(List<GpuView> views, String key) {
        List<GpuView> out = new ArrayList<>(views.size());
        for (GpuView v : views) {
            long freed = 0;
            List<Tenant> tenants = new ArrayList<>();
            for (Tenant t : v.tenants()) {
                if (t.key().equals(key)) {
                    freed += t.currentMib();
                } else {
                    tenants.add(t);
                }
            }
            out.add(tenants.size() == v.tenants().size() ? v : new GpuView(v.index(), v.totalMib(),
                    Math.max(0, v.usedMib() - freed), v.externalPeaksMib(), tenants, v.healthy(), v.paused()));
        }
        return out;
    }
}
