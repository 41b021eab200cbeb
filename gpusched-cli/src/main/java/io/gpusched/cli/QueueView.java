package io.gpusched.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code gpusched queue} shows of the service's snapshot: everyone's jobs or one user's
 * ({@code --user}), and the last {@link #RECENT} finished jobs or every one the snapshot holds
 * ({@code --all}). Filtered here, in the client, on the rows' {@code owner}: the daemon sends the whole
 * snapshot either way, and {@code --json} prints the same rows as the text.
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
     * @param snapshot the snapshot with only the chosen rows in {@code board}'s lists
     * @param finished how many finished jobs matched the user (before the last-{@value #RECENT} cut)
     * @param leftOut how many of them are not shown ({@code --all} shows them)
     */
    record Shown(Map<String, Object> snapshot, int finished, int leftOut) {
    }

    /**
     * @param snapshot the {@code queue} answer's snapshot, as parsed JSON
     * @return a filtered copy; the input is not changed
     */
    @SuppressWarnings("unchecked")
    Shown apply(Map<String, Object> snapshot) {
        Map<String, Object> board = new LinkedHashMap<>((Map<String, Object>) snapshot.get("board"));
        board.replaceAll((list, rows) -> rows instanceof List<?> l ? mine((List<Object>) l) : rows);
        // Finished: those that ended in an earlier run, then this run's, each in number order.
        List<Object> finished = new ArrayList<>(rows(board, "earlier"));
        finished.addAll(rows(board, "done"));
        int leftOut = all ? 0 : Math.max(0, finished.size() - RECENT);
        Set<Object> cut = Collections.newSetFromMap(new IdentityHashMap<>());
        cut.addAll(finished.subList(0, leftOut));
        for (String list : List.of("earlier", "done")) {
            if (board.get(list) instanceof List<?> l) {
                board.put(list, l.stream().filter(r -> !cut.contains(r)).toList());
            }
        }
        Map<String, Object> out = new LinkedHashMap<>(snapshot);
        out.put("board", board);
        return new Shown(out, finished.size(), leftOut);
    }

    private List<Object> mine(List<Object> rows) {
        return user.isEmpty() ? rows : rows.stream()
                .filter(r -> r instanceof Map<?, ?> m && user.get().equals(m.get("owner"))).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> rows(Map<String, Object> board, String list) {
        return board.get(list) instanceof List<?> l ? (List<Object>) l : List.of();
    }
}
