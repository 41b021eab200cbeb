package io.gpusched.engine;

import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.gpu.GpuStat;
import io.gpusched.journal.JournalEvent;
import io.gpusched.model.GpuschedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The paused GPUs, as the journal holds them ({@link io.gpusched.journal.JournalState#pauses()}), read
 * against the GPUs as last listed. A pause names the device by UUID where the backend gives one, so it
 * stays on that device when the GPUs are renumbered (MIG instances made or destroyed on an earlier GPU,
 * a GPU off the bus), instead of passing to whichever device takes its index; without UUIDs (simulated
 * GPUs) a pause is of an index. Loop thread only; holds nothing of its own.
 */
final class GpuPauses {
    private final Durability durability;
    private final Reporter reporter;
    private final LoopClock clock;

    GpuPauses(Durability durability, Reporter reporter, LoopClock clock) {
        this.durability = durability;
        this.reporter = reporter;
        this.clock = clock;
    }

    /**
     * @param gpus the GPUs as last listed (empty before the first read)
     * @return the indices paused now: each paused device where it is listed; a paused device no longer
     *     listed at the index it was last listed at, while no other device has that index (so it is shown,
     *     and can be resumed, as a pause of a GPU that left); a pause of an index at that index
     */
    Set<Integer> now(List<GpuStat> gpus) {
        List<JournalEvent.GpuPaused> pauses = durability.state().pauses();
        if (pauses.isEmpty()) {
            return Set.of();
        }
        Set<Integer> out = new TreeSet<>();
        for (JournalEvent.GpuPaused p : pauses) {
            at(p, gpus).ifPresent(out::add);
        }
        return out;
    }

    /** @return the index {@code p} pauses now, if any ({@link #now}) */
    private static Optional<Integer> at(JournalEvent.GpuPaused p, List<GpuStat> gpus) {
        if (p.device().isEmpty()) {
            return Optional.of(p.gpu());
        }
        for (GpuStat g : gpus) {
            if (g.uuid().equals(p.device())) {
                return Optional.of(g.index());
            }
        }
        return gpus.stream().anyMatch(g -> g.index() == p.gpu()) ? Optional.empty() : Optional.of(p.gpu());
    }

    /**
     * After each round's read: binds a pause of an index to the device listed there, when it has a UUID (a
     * pause journaled before pauses named devices, taken up at the first read after the restart; or one
     * that waited for its GPU to come back), and journals a paused device's new index when the GPUs were
     * renumbered, saying so. Journals nothing when nothing changed.
     *
     * @param gpus the GPUs just read
     */
    void follow(List<GpuStat> gpus) {
        List<JournalEvent.GpuPaused> pauses = durability.state().pauses();
        if (pauses.isEmpty()) {
            return;
        }
        Map<Integer, GpuStat> byIndex = new HashMap<>();
        Map<String, GpuStat> byUuid = new HashMap<>();
        for (GpuStat g : gpus) {
            byIndex.put(g.index(), g);
            g.uuid().ifPresent(u -> byUuid.put(u, g));
        }
        List<JournalEvent> lines = new ArrayList<>();
        for (JournalEvent.GpuPaused p : pauses) {
            if (p.device().isEmpty()) {
                GpuStat g = byIndex.get(p.gpu());
                if (g != null && g.uuid().isPresent() && !lines.contains(paused(g.index(), g.uuid(), true))) {
                    lines.add(paused(g.index(), g.uuid(), true));
                }
                continue;
            }
            GpuStat g = byUuid.get(p.device().get());
            if (g != null && g.index() != p.gpu() && !lines.contains(paused(g.index(), p.device(), true))) {
                lines.add(paused(g.index(), p.device(), true));
                reporter.warn("gpu " + p.gpu() + " (" + p.device().get() + "), paused, is listed as gpu " + g.index()
                        + " now: the GPUs were renumbered (MIG instances created or destroyed?); its pause follows it"
                        + " to gpu " + g.index());
            }
        }
        if (!lines.isEmpty()) {
            durability.record(lines);
        }
    }

    /**
     * Pauses or resumes the GPU listed at {@code gpu}: running jobs continue; while paused nothing new is
     * placed there, and jobs that need it wait (never infeasible because of a pause). A pause names the
     * device there by UUID, when it has one, and follows it.
     *
     * @param gpus the GPUs as last listed
     * @throws GpuschedException for an index not listed, unless it is a resume of a pause shown there: a
     *     pause outlives its GPU (one that fell off the bus, a machine with fewer GPUs after a restart),
     *     and would otherwise be shown until the GPU came back
     */
    void pause(int gpu, boolean paused, List<GpuStat> gpus) {
        Set<Integer> pausedNow = now(gpus);
        Optional<GpuStat> listed = gpus.stream().filter(g -> g.index() == gpu).findFirst();
        if (listed.isEmpty() && (paused || !pausedNow.contains(gpu))) {
            throw new GpuschedException("no GPU " + gpu + " here; GPUs: " + gpus.stream().map(GpuStat::index)
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
        }
        if (pausedNow.contains(gpu) == paused) {
            return;
        }
        List<JournalEvent> lines = new ArrayList<>();
        if (paused) {
            lines.add(paused(gpu, listed.get().uuid(), true));
        } else {
            for (JournalEvent.GpuPaused p : durability.state().pauses()) {
                if (at(p, gpus).equals(Optional.of(gpu))) {
                    lines.add(paused(gpu, p.device(), false));
                }
            }
        }
        durability.record(lines);
        reporter.emit(new SchedulerEvent.GpuPauseChanged(clock.now(), gpu, paused));
    }

    private static JournalEvent.GpuPaused paused(int gpu, Optional<String> device, boolean paused) {
        return new JournalEvent.GpuPaused(JournalEvent.GpuPaused.keyOf(gpu), gpu, device, paused);
    }
}
