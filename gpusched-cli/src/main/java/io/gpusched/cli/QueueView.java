package io.gpusched.cli;

import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code gpusched queue} shows of the service's snapshot: everyone's jobs or one user's
 * ({@code --user}), and the last {@link #RECENT} finished jobs or every one the snapshot holds
 * ({@code --all}). Filtered on the rows' {@code owner}: here, in the client, for {@code --json} and for a
 * daemon that prints no text; in the daemon, by {@link ServedQueueText}, for the text it prints. Either
 * way the same rows.
 *
 * @param user only this user's rows; empty for everyone's. A row without an owner matches no user
 * @param all every finished job rather than the last {@link #RECENT}
 */
record QueueView(Optional<String> user, boolean all) {
    /** How many finished jobs the queue shows without {@code --all}. */
    static final int RECENT = 10;

    /**
     * The snapshot filtered, and how many finished jobs matched but were left out.
     *
     * @param snapshot the snapshot with only the chosen rows in its board's lists
     * @param finished how many finished jobs matched the user (before the last-{@value #RECENT} cut)
     * @param leftOut how many of them are not shown ({@code --all} shows them)
     */
    record Shown(io.gpusched.protocol.QueueView snapshot, int finished, int leftOut) {
    }

    /**
     * @param snapshot the {@code queue} answer's snapshot
     * @return a filtered copy
     */
    Shown apply(io.gpusched.protocol.QueueView snapshot) {
        io.gpusched.protocol.QueueView.Board b = snapshot.board();
        List<Row.Ended> earlier = mine(b.earlier());
        List<Row.Ended> done = mine(b.done());
        // Finished: those that ended in an earlier run, then this run's, each in number order.
        List<Row.Ended> finished = new ArrayList<>(earlier);
        finished.addAll(done);
        int leftOut = all ? 0 : Math.max(0, finished.size() - RECENT);
        Set<Row> cut = Collections.newSetFromMap(new IdentityHashMap<>());
        cut.addAll(finished.subList(0, leftOut));
        io.gpusched.protocol.QueueView.Board board = new io.gpusched.protocol.QueueView.Board(mine(b.running()),
                mine(b.pending()), done.stream().filter(r -> !cut.contains(r)).toList(),
                earlier.stream().filter(r -> !cut.contains(r)).toList(), mine(b.interrupted()));
        return new Shown(snapshot.withBoard(board), finished.size(), leftOut);
    }

    private <R extends Row> List<R> mine(List<R> rows) {
        return user.isEmpty() ? rows : rows.stream()
                .filter(r -> r.owner().map(ListText::text).filter(user.get()::equals).isPresent()).toList();
    }
}
