package io.gpusched.jobs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The checks that need the whole file, run once every line has been read: each name is given by one
 * line, every {@code after} names a job of the file, and the dependencies have no cycle. Each bad
 * line gets one error, the first of: its name taken by an earlier line, an unknown name it waits for,
 * a cycle it starts. A line with such an error is left out of the cycle search, as lines with syntax
 * errors are: a cycle through it is reported once it is fixed. A bad line still counts as giving the
 * name its block shows (a later line giving it too is told so, and its dependents are not told the
 * name is missing), so a typo elsewhere on it does not make other lines bad.
 *
 * <p>For a file that grew by appends, the lines read before ({@link Names}, all good) are not checked
 * again: their names are known and taken, and since they wait only for each other, a new cycle can
 * only be made of new lines. The errors are then the same as for the whole file.
 *
 * <p>Why one long file: the three whole-file rules (names, known dependencies, no cycle) share one pass
 * and one error list, for whole files and for appends alike.
 */
final class JobsFileChecks {
    /** The names of lines already accepted, each with its line, in line order; grows only through {@link #commit()}. */
    static final class Names {
        private final LinkedHashMap<String, Integer> lines = new LinkedHashMap<>();
    }

    /**
     * A good line that has a name or waits for others.
     *
     * @param after its dependencies in the order written
     */
    record Entry(int line, Optional<String> name, List<SchedulingSyntax.Dep> after) {
    }

    /**
     * One line's file-level error, built only when it will be reported.
     *
     * @param line the line it is on
     * @param error builds it
     */
    record Problem(int line, Supplier<JobSpecException> error) {
    }

    private static final String CYCLE_FIX = "remove one of these dependencies";
    private static final int CYCLE_NAMES_SHOWN = 10;

    private final String source;
    private final Names base;
    private final List<Entry> entries = new ArrayList<>();
    /** Every name this version gives, good lines' and bad lines', first line each, in line order. */
    private final LinkedHashMap<String, Integer> newNames = new LinkedHashMap<>();

    /**
     * @param base the names of the lines before those this check will see (empty for a whole file)
     */
    JobsFileChecks(String source, Names base) {
        this.source = source;
        this.base = base;
    }

    /** Records a good line; lines without name or dependencies need not be passed. */
    void good(Entry e) {
        entries.add(e);
        e.name().ifPresent(n -> newNames.putIfAbsent(n, e.line()));
    }

    /** Records the name a bad line's block shows, if any. */
    void bad(int line, Optional<String> name) {
        name.ifPresent(n -> newNames.putIfAbsent(n, line));
    }

    /**
     * @param complete whether every line of the file was read; if the reading stopped early, a
     *     name may be given further down, so no {@code after} is called unknown
     * @return the problems, one per bad line, in line order
     */
    List<Problem> problems(boolean complete) {
        if (entries.isEmpty()) {
            return List.of();
        }
        List<Problem> problems = new ArrayList<>();
        // The line dependents wait for: the first to give the name, when it is good.
        Map<String, Entry> owner = new HashMap<>();
        List<Entry> clean = new ArrayList<>();
        for (Entry e : entries) {
            Optional<Problem> p = namedTwice(e, owner).or(() -> complete ? unknownDependency(e) : Optional.empty());
            p.ifPresentOrElse(problems::add, () -> clean.add(e));
        }
        problems.addAll(cycles(clean, owner));
        problems.sort(Comparator.comparingInt(Problem::line));
        return problems;
    }

    /** Adds this version's names to the base: called once its parse has succeeded. */
    void commit() {
        newNames.forEach(base.lines::putIfAbsent);
    }

    private Optional<Problem> namedTwice(Entry e, Map<String, Entry> owner) {
        if (e.name().isEmpty()) {
            return Optional.empty();
        }
        String name = e.name().get();
        // The first line to give the name, good or bad: a bad line keeps its name as it is fixed.
        int firstLine = base.lines.getOrDefault(name, newNames.get(name));
        if (firstLine == e.line()) {
            owner.put(name, e);
            return Optional.empty();
        }
        return Optional.of(new Problem(e.line(), () -> JobSpecException.stated(source, e.line(), "name=" + name,
                "name=" + name + " is already the name of line " + firstLine, "give each job its own name")));
    }

    private Optional<Problem> unknownDependency(Entry e) {
        for (SchedulingSyntax.Dep d : e.after()) {
            if (!base.lines.containsKey(d.name()) && !newNames.containsKey(d.name())) {
                return Optional.of(new Problem(e.line(), () -> unknown(e.line(), d)));
            }
        }
        return Optional.empty();
    }

    private JobSpecException unknown(int line, SchedulingSyntax.Dep d) {
        String statement = d.token() + " names no job in this file";
        String fix = "add [name=" + d.name() + "] to the job it means, or fix the name";
        return closest(d.name())
                .map(s -> JobSpecException.stated(source, line, d.token(), statement + " — did you mean '" + s + "'?", fix))
                .orElseGet(() -> JobSpecException.stated(source, line, d.token(), statement, fix));
    }

    /** The defined name closest to {@code typed}; one that differs only in case first, which {@link DidYouMean} leaves out. */
    private Optional<String> closest(String typed) {
        List<String> known = new ArrayList<>(base.lines.size() + newNames.size());
        known.addAll(base.lines.keySet());
        newNames.keySet().stream().filter(n -> !base.lines.containsKey(n)).forEach(known::add);
        return known.stream().filter(typed::equalsIgnoreCase).findFirst().or(() -> DidYouMean.suggest(typed, known));
    }

    /**
     * One problem per strongly connected component with a cycle, on its first line, naming the shortest
     * cycle through that line. Edges go to each name's first good line among {@code clean}; edges to
     * earlier versions' lines are left out, as they cannot lead back.
     */
    private List<Problem> cycles(List<Entry> clean, Map<String, Entry> owner) {
        int n = clean.size();
        Map<Entry, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(clean.get(i), i);
        }
        int[][] edges = new int[n][];
        for (int i = 0; i < n; i++) {
            edges[i] = clean.get(i).after().stream()
                    .map(d -> owner.get(d.name()))
                    .mapToInt(t -> t == null ? -1 : index.getOrDefault(t, -1))
                    .toArray();
        }
        int[] component = Tarjan.components(edges);
        Map<Integer, List<Integer>> members = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            members.computeIfAbsent(component[i], c -> new ArrayList<>()).add(i);
        }
        List<Problem> problems = new ArrayList<>();
        for (List<Integer> m : members.values()) {
            int start = m.get(0); // entries are in line order, so this is the component's first line
            boolean cyclic = m.size() > 1 || Arrays.stream(edges[start]).anyMatch(t -> t == start);
            if (cyclic) {
                List<Integer> path = shortestCycle(start, edges, component);
                Entry e = clean.get(start);
                SchedulingSyntax.Dep first = e.after().get(firstEdge(edges[start], path.get(1)));
                List<String> names = path.stream().map(i -> clean.get(i).name().orElseThrow()).toList();
                problems.add(new Problem(e.line(), () -> JobSpecException.stated(source, e.line(), first.token(),
                        first.token() + " makes a cycle: " + show(names), CYCLE_FIX)));
            }
        }
        return problems;
    }

    private static int firstEdge(int[] edges, int target) {
        for (int k = 0; k < edges.length; k++) {
            if (edges[k] == target) {
                return k;
            }
        }
        throw new IllegalStateException("no edge to " + target);
    }

    /** Breadth-first from {@code start} within its component, edges in written order: start, ..., start. */
    private static List<Integer> shortestCycle(int start, int[][] edges, int[] component) {
        Map<Integer, Integer> parent = new HashMap<>();
        ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            int v = queue.poll();
            for (int t : edges[v]) {
                if (t < 0 || component[t] != component[start]) {
                    continue;
                }
                if (t == start) {
                    List<Integer> path = new ArrayList<>(List.of(start));
                    for (int u = v; u != start; u = parent.get(u)) {
                        path.add(1, u);
                    }
                    path.add(start);
                    return path;
                }
                if (!parent.containsKey(t)) {
                    parent.put(t, v);
                    queue.add(t);
                }
            }
        }
        throw new IllegalStateException("component of " + start + " has no cycle through it");
    }

    /** {@code a -> b -> a}; a long cycle shows its first names, its last and its length. */
    private static String show(List<String> cycle) {
        if (cycle.size() <= CYCLE_NAMES_SHOWN + 1) {
            return String.join(" -> ", cycle);
        }
        int jobs = cycle.size() - 1;
        return String.join(" -> ", cycle.subList(0, CYCLE_NAMES_SHOWN - 2)) + " -> ... -> " + cycle.get(jobs - 1)
                + " -> " + cycle.get(0) + " (" + jobs + " jobs)";
    }

    /** Strongly connected components without recursion, so a chain of 100,000 dependencies cannot overflow the stack. */
    static final class Tarjan {
        private Tarjan() {
        }

        /**
         * @param edges for each node, its successors; -1 entries are ignored
         * @return each node's component number
         */
        static int[] components(int[][] edges) {
            int n = edges.length;
            int[] order = new int[n];
            int[] low = new int[n];
            int[] component = new int[n];
            boolean[] onStack = new boolean[n];
            Arrays.fill(order, -1);
            int[] stack = new int[n];
            int top = 0;
            int[] callNode = new int[n];
            int[] callEdge = new int[n];
            int counter = 0;
            int components = 0;
            for (int root = 0; root < n; root++) {
                if (order[root] >= 0) {
                    continue;
                }
                int depth = 0;
                callNode[0] = root;
                callEdge[0] = 0;
                order[root] = low[root] = counter++;
                stack[top++] = root;
                onStack[root] = true;
                while (depth >= 0) {
                    int v = callNode[depth];
                    if (callEdge[depth] < edges[v].length) {
                        int w = edges[v][callEdge[depth]++];
                        if (w < 0) {
                            continue;
                        }
                        if (order[w] < 0) {
                            order[w] = low[w] = counter++;
                            stack[top++] = w;
                            onStack[w] = true;
                            depth++;
                            callNode[depth] = w;
                            callEdge[depth] = 0;
                        } else if (onStack[w]) {
                            low[v] = Math.min(low[v], order[w]);
                        }
                        continue;
                    }
                    if (low[v] == order[v]) {
                        int w;
                        do {
                            w = stack[--top];
                            onStack[w] = false;
                            component[w] = components;
                        } while (w != v);
                        components++;
                    }
                    depth--;
                    if (depth >= 0) {
                        int parent = callNode[depth];
                        low[parent] = Math.min(low[parent], low[v]);
                    }
                }
            }
            return component;
        }
    }
}
