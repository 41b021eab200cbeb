package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import java.util.ArrayList;
import java.util.List;

/**
 * One GPU's memory as a bar of cells, left to right: each job on it (by number) with what it holds
 * now and, after that, what it declared but does not hold yet; then what other processes use (not
 * ours: another user's, or a job left over from an earlier scheduler); then the headroom. A job that
 * holds more than it declared takes what it holds.
 */
final class MemoryBar {
    /**
     * A run of memory drawn in one glyph.
     *
     * @param glyph the character each of its cells shows
     * @param style its colour
     * @param mib how much memory it stands for
     */
    record Segment(String glyph, Style style, long mib) {
    }

    private MemoryBar() {
    }

    /**
     * @param gpu the GPU
     * @param jobs the running jobs (those on other GPUs are skipped)
     * @param glyphs the characters to draw with
     * @return the segments, left to right; empty ones left out
     */
    static List<Segment> segments(TopSnapshot.Gpu gpu, List<TopSnapshot.Running> jobs, TopRenderer.Glyphs glyphs) {
        List<Segment> out = new ArrayList<>();
        long ours = 0;
        long footprint = 0;
        int k = 0;
        for (TopSnapshot.Running j : onGpu(gpu, jobs)) {
            long used = j.currentMib().getOrDefault(gpu.index(), 0L);
            long declared = j.declaredMib().orElse(0);
            // Alternate two glyphs so neighbouring jobs stay apart where there is no colour.
            add(out, new Segment(k++ % 2 == 0 ? glyphs.used() : glyphs.usedNext(), Style.job(j.no()), used));
            add(out, new Segment(glyphs.declared(), Style.job(j.no()), Math.max(0, declared - used)));
            ours += used;
            footprint += Math.max(used, declared);
        }
        long external = Math.max(0, gpu.usedMib() - ours);
        add(out, new Segment(glyphs.external(), Style.EXTERNAL, external));
        add(out, new Segment(" ", Style.PLAIN, Math.max(0, gpu.totalMib() - footprint - external)));
        return out;
    }

    /** @return the jobs on {@code gpu}, by number */
    static List<TopSnapshot.Running> onGpu(TopSnapshot.Gpu gpu, List<TopSnapshot.Running> jobs) {
        return jobs.stream().filter(j -> j.gpus().contains(gpu.index()))
                .sorted(java.util.Comparator.comparingInt(TopSnapshot.Running::no)).toList();
    }

    /** @return what other processes than our jobs use on {@code gpu} */
    static long external(TopSnapshot.Gpu gpu, List<TopSnapshot.Running> jobs) {
        long ours = onGpu(gpu, jobs).stream().mapToLong(j -> j.currentMib().getOrDefault(gpu.index(), 0L)).sum();
        return Math.max(0, gpu.usedMib() - ours);
    }

    /** @return the headroom: what no job holds or has declared and no other process uses */
    static long headroom(TopSnapshot.Gpu gpu, List<TopSnapshot.Running> jobs) {
        long footprint = onGpu(gpu, jobs).stream()
                .mapToLong(j -> Math.max(j.currentMib().getOrDefault(gpu.index(), 0L), j.declaredMib().orElse(0))).sum();
        return Math.max(0, gpu.totalMib() - footprint - external(gpu, jobs));
    }

    private static void add(List<Segment> out, Segment s) {
        if (s.mib() > 0) {
            out.add(s);
        }
    }

    /**
     * @param segments the bar's segments
     * @param totalMib the GPU's memory
     * @param width its cells
     * @return exactly {@code width} cells of spans: each segment's share of the memory (of the GPU's, or
     *     of the segments' sum where jobs hold more than the GPU reports), rounded at its cumulative
     *     boundary so the shares always add up
     */
    static List<Span> cells(List<Segment> segments, long totalMib, int width) {
        long whole = Math.max(totalMib, segments.stream().mapToLong(Segment::mib).sum());
        List<Span> out = new ArrayList<>();
        long cumulative = 0;
        int drawn = 0;
        for (Segment s : segments) {
            cumulative += s.mib();
            int end = whole == 0 ? 0 : (int) Math.round((double) cumulative * width / whole);
            if (end > drawn) {
                out.add(new Span(s.glyph().repeat(end - drawn), s.style()));
                drawn = end;
            }
        }
        if (drawn < width) {
            out.add(new Span(" ".repeat(width - drawn), Style.PLAIN));
        }
        return out;
    }
}
