package io.gpusched.engine.stop;

import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.proc.SessionSignals;
import io.gpusched.engine.table.JobTable;

import java.util.ArrayList;
import java.util.List;

/**
 * Kills what ended runs left behind — a child that trapped SIGTERM, a background process, a daemon
 * that left the session but kept the run token — so nothing outlives its job holding GPU memory. Runs
 * that end are collected and swept together, in one pass over {@code /proc} (a pass costs about a
 * millisecond; one per ended job would dominate a queue of short jobs).
 */
public final class Leftovers {
    private final SessionSignals signals;
    private final JobTable table;
    private final Reporter reporter;
    private final List<Sweep> sweeps = new ArrayList<>();

    /** A finished run whose leftovers the next sweep kills; {@code report} when nobody stopped it. */
    private record Sweep(int no, ProcFs.Run run, boolean report) {
    }

    public Leftovers(SessionSignals signals, JobTable table, Reporter reporter) {
        this.signals = signals;
        this.table = table;
        this.reporter = reporter;
    }

    /** Queues a run whose leader exited; {@code report} says a kill is worth a warning (nobody stopped it). */
    public void add(int no, ProcFs.Run run, boolean report) {
        sweeps.add(new Sweep(no, run, report));
    }

    public boolean isEmpty() {
        return sweeps.isEmpty();
    }

    /** Kills now what the given runs left (a stop's last resort, or an orphan found dead). */
    public void killNow(ProcFs.Run run) {
        signals.killLeftovers(List.of(run), table.otherSessions());
    }

    public void sweep() {
        if (sweeps.isEmpty()) {
            return;
        }
        List<Sweep> batch = List.copyOf(sweeps);
        sweeps.clear();
        int[] killed = signals.killLeftovers(batch.stream().map(Sweep::run).toList(), table.otherSessions());
        for (int i = 0; i < batch.size(); i++) {
            int left = killed[i];
            if (left > 0 && batch.get(i).report()) {
                reporter.warnOnce("job " + batch.get(i).no() + " left " + left + " process" + (left == 1 ? "" : "es")
                        + " running after it exited; killed " + (left == 1 ? "it" : "them"));
            }
        }
    }
}
