package io.gpusched.cli;

import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import io.gpusched.service.GpuschedClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code gpusched attach} without a job number: the caller's jobs that have a terminal ({@code [tty]}),
 * as {@code screen -ls} lists one's sessions, or, as {@code screen -r} does when there is only one,
 * that terminal straight away. Exactly one running job with a terminal is attached to (pending ones
 * have none yet); with none, or several, the list is printed and the user picks one by number.
 */
final class TerminalJobs {
    /** The most columns a command takes in the list; longer ones end in {@code …} ({@code gpusched show N}). */
    static final int COMMAND_COLUMNS = 60;

    private final PrintStream out;
    private final PrintStream err;
    private final JobOutputReader reader;

    TerminalJobs(PrintStream out, PrintStream err, JobOutputReader reader) {
        this.out = out;
        this.err = err;
        this.reader = reader;
    }

    /**
     * Lists the caller's jobs with a terminal, or attaches to the only one running.
     *
     * @return 0 after a list, 1 when there is none; after attaching, what {@code attach N} returns
     */
    int run(GpuschedClient c) {
        String me = c.user();
        io.gpusched.protocol.QueueView.Board board = c.queue().board();
        List<Row> mine = new ArrayList<>();
        for (Row r : board.running()) {
            if (mine(r, me) && QueueTable.tty(r)) {
                mine.add(r);
            }
        }
        List<Row> runningOnes = List.copyOf(mine);
        for (Row r : board.pending()) {
            if (mine(r, me) && QueueTable.tty(r)) {
                mine.add(r);
            }
        }
        if (mine.isEmpty()) {
            err.println("gpusched: no job of " + me + " has a terminal (gpusched submit --tty, or tty in a jobs file's"
                    + " [...] block, runs one in a terminal)");
            return 1;
        }
        if (runningOnes.size() == 1) {
            int no = runningOnes.get(0).no();
            err.println("attaching to job " + no + ", the only running job of " + me + " with a terminal (Ctrl-b d detaches)");
            return reader.attach(c, no);
        }
        out.println(mine.size() + " job" + (mine.size() == 1 ? " of " + me + " has" : "s of " + me + " have")
                + " a terminal:");
        int width = mine.stream().mapToInt(r -> String.valueOf(r.no()).length()).max().orElse(1);
        for (Row r : mine) {
            String state = r instanceof Row.Running ? "running" : "pending";
            out.println("  " + " ".repeat(width - String.valueOf(r.no()).length()) + r.no() + "  " + state + "  "
                    + DisplayWidth.fit(DisplayWidth.clean(r.command().text()), COMMAND_COLUMNS, "…"));
        }
        out.println(runningOnes.isEmpty() ? "none runs yet: gpusched attach N once it does"
                : "gpusched attach N attaches to one (Ctrl-b d detaches)");
        return 0;
    }

    /** A row of the caller's; a row without an owner (a jobs-file run's) is its runner's, who can reach its socket. */
    private static boolean mine(Row r, String me) {
        Optional<String> owner = r.owner().map(ListText::text);
        return owner.isEmpty() || owner.get().equals(me);
    }
}
