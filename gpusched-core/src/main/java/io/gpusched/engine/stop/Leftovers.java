package io.gpusched.engine.stop;

import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.proc.SessionSignals;
import io.gpusched.engine.spawn.TtySockets;
import io.gpusched.engine.table.JobTable;
import io.gpusched.model.TtySession;
import java.util.Optional;

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
    private record Sweep(int no, ProcFs.Run run, boolean report, Optional<Terminal> terminal) {
    }

    /**
     * A {@code [tty]} run's terminal, whose socket the sweep removes once its server is killed.
     *
     * @param key the job's key: while another attempt of it runs, the socket (of the same name) is that one's
     * @param tty its tmux server's name
     * @param owner the user it ran as ({@link TtySockets#removeLeftOver})
     */
    public record Terminal(String key, TtySession tty, String owner) {
    }

    public Leftovers(SessionSignals signals, JobTable table, Reporter reporter) {
        this.signals = signals;
        this.table = table;
        this.reporter = reporter;
    }

    /** Queues a run whose leader exited; {@code report} says a kill is worth a warning (nobody stopped it). */
    public void add(int no, ProcFs.Run run, boolean report) {
        add(no, run, report, Optional.empty());
    }

    /** As {@link #add(int, ProcFs.Run, boolean)}, for a run with a terminal whose socket goes after it. */
    public void add(int no, ProcFs.Run run, boolean report, Optional<Terminal> terminal) {
        sweeps.add(new Sweep(no, run, report, terminal));
    }

    /**
     * @return whether no process can outlive its session here ({@link io.gpusched.engine.proc.ProcTable#leavesNothing}):
     *     a run then leaves nothing to sweep for but, with a terminal, its socket
     */
    public boolean nothingOutlivesASession() {
        return signals.leavesNothing();
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
        // Where no process outlives its session (a simulation's stand-in) none is looked for, nor are the
        // sessions of the running jobs gathered to tell theirs apart.
        int[] killed = signals.leavesNothing() ? new int[batch.size()]
                : signals.killLeftovers(batch.stream().map(Sweep::run).toList(), table.otherSessions());
        for (int i = 0; i < batch.size(); i++) {
            int left = killed[i];
            if (left > 0 && batch.get(i).report()) {
                reporter.warnOnce("job " + batch.get(i).no() + " left " + left + " process" + (left == 1 ? "" : "es")
                        + " running after it exited; killed " + (left == 1 ? "it" : "them"));
            }
            // Its server is dead now (it died with the command, or was just killed): tmux leaves its socket.
            batch.get(i).terminal().filter(t -> table.run(t.key()).isEmpty())
                    .ifPresent(t -> TtySockets.removeLeftOver(t.tty(), t.owner()));
        }
    }
}
