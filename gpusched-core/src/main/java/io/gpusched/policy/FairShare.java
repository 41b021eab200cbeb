package io.gpusched.policy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Each owner's recent GPU time, decaying with a half-life: the figure fair share lowers an owner's
 * effective priority by. Pure arithmetic over the times it is given; the engine keeps one per run
 * (it starts empty after a restart).
 */
public final class FairShare {
    private record Usage(double gpuHours, Instant at) {
    }

    private final Duration halfLife;
    private final Map<String, Usage> usage = new HashMap<>();

    /** @param halfLife after this long, GPU time counts half */
    public FairShare(Duration halfLife) {
        this.halfLife = halfLife;
    }

    /**
     * Counts a job's GPU time.
     *
     * @param owner who it ran for
     * @param gpus how many GPUs it held
     * @param ran how long it held them
     * @param at when it ended
     */
    public void add(String owner, int gpus, Duration ran, Instant at) {
        double hours = gpus * (ran.toMillis() / 3_600_000.0);
        usage.put(owner, new Usage(decayed(owner, at) + hours, at));
    }

    /**
     * @param now the time
     * @return every owner's recent GPU-hours at {@code now}
     */
    public Map<String, Double> recent(Instant now) {
        Map<String, Double> out = new HashMap<>();
        for (String owner : usage.keySet()) {
            double h = decayed(owner, now);
            if (h >= 0.01) {
                out.put(owner, h);
            }
        }
        // Owners whose time has decayed to nothing are forgotten, so a long run's map stays small.
        usage.keySet().retainAll(out.keySet());
        return out;
    }

    private double decayed(String owner, Instant now) {
        Usage u = usage.get(owner);
        if (u == null) {
            return 0;
        }
        double elapsed = Math.max(0, Duration.between(u.at(), now).toMillis());
        return u.gpuHours() * Math.pow(0.5, elapsed / halfLife.toMillis());
    }
}
