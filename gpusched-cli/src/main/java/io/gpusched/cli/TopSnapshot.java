package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What {@code gpusched top} shows of one {@code queue} answer, typed: read once from the parsed JSON
 * so the renderer is a function of plain values (and tests build these directly). Text from jobs is
 * {@link DisplayWidth#clean}ed here.
 *
 * @param gpus the GPUs by index; empty before the daemon's first GPU reading
 * @param running running jobs by number
 * @param pending pending jobs in queue order
 * @param finished finished jobs, oldest first (an earlier run's, then this run's)
 */
record TopSnapshot(List<Gpu> gpus, List<Running> running, List<Pending> pending, List<Finished> finished) {
    TopSnapshot {
        gpus = List.copyOf(gpus);
        running = List.copyOf(running);
        pending = List.copyOf(pending);
        finished = List.copyOf(finished);
    }

    /**
     * @param index its index
     * @param totalMib its memory
     * @param usedMib memory in use by every process on it, ours and others'
     * @param utilPercent how busy it is, when known
     * @param healthy false when the backend lost it
     * @param paused whether it takes no new jobs
     */
    record Gpu(int index, long totalMib, long usedMib, OptionalInt utilPercent, boolean healthy, boolean paused) {
    }

    /**
     * @param no its number
     * @param owner whose it is ("" when the daemon does not say)
     * @param priority its priority
     * @param gpus its GPUs
     * @param currentMib what it holds now, by GPU
     * @param declaredMib its per-GPU declaration; empty when undeclared (or an older daemon)
     * @param elapsedSeconds how long it has run
     * @param stopping whether it is being stopped (cancelled, timed out, preempted)
     * @param command its command
     */
    record Running(int no, String owner, int priority, List<Integer> gpus, Map<Integer, Long> currentMib,
                   OptionalLong declaredMib, long elapsedSeconds, boolean stopping, String command) {
        Running {
            gpus = List.copyOf(gpus);
            currentMib = Map.copyOf(currentMib);
        }

        /** @return the most it holds on any one of its GPUs now: what compares with a per-GPU declaration */
        long usedMib() {
            return currentMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /**
     * @param no its number
     * @param owner whose it is ("" when not known)
     * @param priority its priority
     * @param declaredMib its per-GPU declaration, when it has one
     * @param reason why it waits ("" when not yet known)
     * @param command its command
     */
    record Pending(int no, String owner, int priority, OptionalLong declaredMib, String reason, String command) {
    }

    /**
     * @param no its number
     * @param owner whose it was ("" when not known)
     * @param status how it ended, e.g. {@code ok}, {@code failed_oom}
     * @param declaration the verdict on its declaration in the log's words ({@code within},
     *     {@code over-declared}, {@code under-declared}), or "" when none was judged
     * @param declaredMib its per-GPU declaration, when it had one
     * @param peakMib its largest per-GPU peak, 0 when never measured
     * @param command its command
     */
    record Finished(int no, String owner, String status, String declaration, OptionalLong declaredMib, long peakMib,
                    String command) {
    }

    /**
     * @param snapshot the {@code queue} answer's {@code snapshot}, as {@code GpuschedClient.queue()} parses it
     * @return its typed view; a field the daemon leaves out reads as absent, not as an error
     */
    @SuppressWarnings("unchecked")
    static TopSnapshot of(Map<String, Object> snapshot) {
        Map<String, Object> board = map(snapshot.get("board"));
        List<Object> paused = list(snapshot.get("paused_gpus"));
        List<Gpu> gpus = new ArrayList<>();
        for (Object o : list(snapshot.get("gpus"))) {
            Map<String, Object> g = map(o);
            int index = (int) number(g.get("index"), 0);
            gpus.add(new Gpu(index, number(g.get("total_mib"), 0), number(g.get("used_mib"), 0),
                    g.get("util_percent") instanceof Number n ? OptionalInt.of(n.intValue()) : OptionalInt.empty(),
                    !Boolean.FALSE.equals(g.get("healthy")),
                    paused.stream().anyMatch(p -> p instanceof Number n && n.intValue() == index)));
        }
        List<Running> running = new ArrayList<>();
        for (Object o : list(board.get("running"))) {
            Map<String, Object> r = map(o);
            Map<Integer, Long> current = new TreeMap<>();
            map(r.get("current_mib")).forEach((gpu, mib) -> current.put(Integer.parseInt(gpu), number(mib, 0)));
            running.add(new Running((int) number(r.get("no"), 0), text(r.get("owner")), (int) number(r.get("priority"), 0),
                    list(r.get("gpus")).stream().map(g -> (int) number(g, 0)).toList(), current,
                    optional(r.get("declared_mib")), Math.round(decimal(r.get("elapsed_s"))), r.get("stopping") != null,
                    text(r.get("command"))));
        }
        List<Pending> pending = new ArrayList<>();
        for (Object o : list(board.get("pending"))) {
            Map<String, Object> p = map(o);
            pending.add(new Pending((int) number(p.get("no"), 0), text(p.get("owner")), (int) number(p.get("priority"), 0),
                    optional(p.get("declared_mib")), text(p.get("reason")), text(p.get("command"))));
        }
        List<Finished> finished = new ArrayList<>();
        List<Object> ended = new ArrayList<>(list(board.get("earlier")));
        ended.addAll(list(board.get("done")));
        for (Object o : ended) {
            Map<String, Object> d = map(o);
            long peak = map(d.get("peak_mib")).values().stream().mapToLong(v -> number(v, 0)).max().orElse(0);
            finished.add(new Finished((int) number(d.get("no"), 0), text(d.get("owner")), text(d.get("status")),
                    text(d.get("declaration")).replace('_', '-'), optional(d.get("declared_mib")), peak,
                    text(d.get("command"))));
        }
        return new TopSnapshot(gpus, running, pending, finished);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return o instanceof List<?> l ? (List<Object>) l : List.of();
    }

    private static long number(Object o, long otherwise) {
        return o instanceof Number n ? n.longValue() : otherwise;
    }

    private static double decimal(Object o) {
        return o instanceof Number n ? n.doubleValue() : 0;
    }

    private static OptionalLong optional(Object o) {
        return o instanceof Number n ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
    }

    private static String text(Object o) {
        return o == null ? "" : DisplayWidth.clean(String.valueOf(o));
    }
}
