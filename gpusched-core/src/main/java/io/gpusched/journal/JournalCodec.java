package io.gpusched.journal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.gpusched.jobs.Units;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Journal events to and from single JSON lines, with jackson-core's streaming API (no databind). One
 * shared, thread-safe {@link JsonFactory}.
 *
 * <p>Why one file a little over 300 lines: the writer and the strict reader of every event sit side by
 * side, with the reader's rules in one Javadoc list, so a field added to one cannot be missed by the other.
 */
public final class JournalCodec {
    /** Largest display number read back: a billion jobs, leaving int room for the numbers after it. */
    static final int MAX_NO = 1_000_000_000;
    /** Most attempts read back: far beyond any retry count, and counting on from it cannot overflow. */
    static final int MAX_ATTEMPTS = 1_000_000;
    /** Largest Slurm job id read back: Slurm's ids are unsigned 32-bit. */
    static final long MAX_SLURM_JOB = 0xFFFF_FFFFL;
    /** Most points of a {@code done} event's {@code vram_timeline} read back: we write at most 32. */
    static final int MAX_TIMELINE_POINTS = 1024;

    private final JsonFactory json = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(40).maxNestingDepth(8).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * @param e an event
     * @return its JSON text, without a line end and without a time
     */
    public String encode(JournalEvent e) {
        return encode(JournalEntry.untimed(e));
    }

    /**
     * @param entry an event and, if present, when it is written: {@code at_ms}, the line's last field, so
     *     every field an older reader looks for stays where it was
     * @return its JSON text, without a line end
     */
    public String encode(JournalEntry entry) {
        JournalEvent e = entry.event();
        StringWriter out = new StringWriter(128);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("key", e.key());
            if (e instanceof JournalEvent.Seen s) {
                g.writeStringField("event", "seen");
                g.writeNumberField("no", s.no());
                g.writeStringField("command", s.command());
            } else if (e instanceof JournalEvent.Submitted s) {
                g.writeStringField("event", "submitted");
                g.writeNumberField("no", s.no());
                g.writeStringField("command", s.command());
                writeOptional(g, "vram", s.vramMib());
                g.writeNumberField("gpus", s.gpus());
                writeOptional(g, "timeout_ns", s.timeoutNanos());
                g.writeNumberField("retries", s.retries());
                g.writeStringField("source", s.source());
                g.writeStringField("owner", s.owner());
                g.writeStringField("cwd", s.cwd());
                g.writeNumberField("submitted_at_ms", s.submittedAtMillis());
                if (s.line().isPresent()) {
                    g.writeStringField("line", s.line().get());
                }
                if (s.output().isPresent()) {
                    g.writeStringField("output", s.output().get());
                }
                if (s.requestId().isPresent()) {
                    g.writeStringField("request_id", s.requestId().get());
                }
                if (s.umask().isPresent()) {
                    g.writeNumberField("umask", s.umask().getAsInt());
                }
                if (s.env().isPresent()) {
                    g.writeObjectFieldStart("env");
                    for (Map.Entry<String, String> v : s.env().get().entrySet()) {
                        g.writeStringField(v.getKey(), v.getValue());
                    }
                    g.writeEndObject();
                }
            } else if (e instanceof JournalEvent.Launching l) {
                g.writeStringField("event", "launching");
                g.writeNumberField("run", l.run());
                writeGpus(g, l.gpus());
            } else if (e instanceof JournalEvent.Started s) {
                g.writeStringField("event", "started");
                g.writeNumberField("pgid", s.pgid());
                writeGpus(g, s.gpus());
                if (s.vramMib().isPresent()) {
                    g.writeNumberField("vram", s.vramMib().getAsLong());
                }
                if (s.rule().isPresent()) {
                    g.writeStringField("rule", s.rule().get());
                }
                if (!s.devices().isEmpty()) {
                    g.writeArrayFieldStart("devices");
                    for (String d : s.devices()) {
                        g.writeString(d);
                    }
                    g.writeEndArray();
                }
                if (s.tickerNanos().isPresent()) {
                    g.writeNumberField("ticker_ns", s.tickerNanos().getAsLong());
                }
            } else if (e instanceof JournalEvent.Interrupted) {
                g.writeStringField("event", "interrupted");
            } else if (e instanceof JournalEvent.Compacted c) {
                g.writeStringField("event", "compacted");
                g.writeNumberField("next_no", c.nextNo());
                g.writeNumberField("next_run", c.nextRun());
            } else if (e instanceof JournalEvent.GpuPaused p) {
                g.writeStringField("event", "gpu_paused");
                g.writeNumberField("gpu", p.gpu());
                if (p.device().isPresent()) {
                    g.writeStringField("device", p.device().get());
                }
                g.writeBooleanField("paused", p.paused());
            } else if (e instanceof JournalEvent.Learned l) {
                g.writeStringField("event", "learned");
                g.writeNumberField("no", l.no());
                g.writeNumberField("peak_mib", l.peakMib());
            } else if (e instanceof JournalEvent.Retry) {
                g.writeStringField("event", "retry");
            } else if (e instanceof JournalEvent.Requeued q) {
                g.writeStringField("event", "requeued");
                g.writeStringField("reason", q.reason());
            } else if (e instanceof JournalEvent.Stopping t) {
                g.writeStringField("event", "stopping");
                g.writeStringField("reason", t.reason());
                if (t.maxJobTime()) {
                    g.writeBooleanField("max_job_time", true);
                }
                if (t.tickerNanos().isPresent()) {
                    g.writeNumberField("ticker_ns", t.tickerNanos().getAsLong());
                }
            } else if (e instanceof JournalEvent.SlurmSubmitted u) {
                g.writeStringField("event", "slurm_submitted");
                g.writeNumberField("slurm_job", u.slurmJob());
                g.writeStringField("gres", u.gres());
            } else if (e instanceof JournalEvent.Oom o) {
                g.writeStringField("event", "oom");
                g.writeNumberField("attempts", o.attempts());
                g.writeFieldName("next_vram");
                if (o.nextVramMib().isPresent()) {
                    g.writeNumber(o.nextVramMib().getAsLong());
                } else {
                    g.writeNull();
                }
            } else if (e instanceof JournalEvent.Done d) {
                g.writeStringField("event", "done");
                g.writeStringField("status", d.status());
                g.writeNumberField("returncode", d.returncode());
                g.writeObjectFieldStart("peak_mib");
                for (Map.Entry<Integer, Long> p : d.peakMib().entrySet()) {
                    g.writeNumberField(String.valueOf(p.getKey()), p.getValue());
                }
                g.writeEndObject();
                g.writeFieldName("avg_util");
                if (d.avgUtil().isPresent()) {
                    g.writeNumber(d.avgUtil().getAsDouble());
                } else {
                    g.writeNull();
                }
                if (!d.vramTimeline().isEmpty()) {
                    // Optional: older readers ignore it, and a journal without it reads as before.
                    g.writeArrayFieldStart("vram_timeline");
                    for (JournalEvent.VramPoint p : d.vramTimeline()) {
                        g.writeStartArray();
                        g.writeNumber(p.ms());
                        g.writeNumber(p.mib());
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                }
            }
            if (entry.atMillis().isPresent()) {
                g.writeNumberField("at_ms", entry.atMillis().getAsLong());
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toString();
    }

    private static java.util.OptionalInt umask(OptionalLong v) {
        return v.isPresent() ? java.util.OptionalInt.of((int) v.getAsLong()) : java.util.OptionalInt.empty();
    }

    private static void writeGpus(JsonGenerator g, java.util.List<Integer> gpus) throws IOException {
        g.writeArrayFieldStart("gpus");
        for (int gpu : gpus) {
            g.writeNumber(gpu);
        }
        g.writeEndArray();
    }

    private static void writeOptional(JsonGenerator g, String name, java.util.OptionalLong v) throws IOException {
        g.writeFieldName(name);
        if (v.isPresent()) {
            g.writeNumber(v.getAsLong());
        } else {
            g.writeNull();
        }
    }

    /**
     * Reads one line strictly. Each event's fields must all be present with their type and range,
     * else the line is unreadable; fields this version does not know are ignored:
     * <ul>
     *   <li>every event: {@code key} a non-empty string, {@code event} a string, {@code at_ms} absent or a
     *       whole number at least 0 (read by {@link #decodeEntry});</li>
     *   <li>{@code seen}: {@code no} in [1, 10^9], {@code command} a string;</li>
     *   <li>{@code started}: {@code pgid} in [2, 2^31 − 1] (a {@code pid_t}; never init, 0 or a
     *       negative group), {@code gpus} an array of indices in [0, 2^31 − 1], {@code vram} absent, null or MiB in
     *       [1, {@link io.gpusched.jobs.Units#MAX_MIB}], {@code rule} absent or a string;</li>
     *   <li>{@code learned}: {@code key} {@code cmd:<hash>} or {@code rule:<name>}, {@code no} as for
     *       {@code seen}, {@code peak_mib} at least 1;</li>
     *   <li>{@code interrupted}, {@code retry}: no other field;</li>
     *   <li>{@code requeued}: {@code reason} {@code preempted} or {@code time_slice};</li>
     *   <li>{@code compacted}: {@code key} {@code journal}, {@code next_no} in [1, 10^9 + 1], {@code next_run} at least 1;</li>
     *   <li>{@code gpu_paused}: {@code gpu} an index, {@code key} {@code gpu<index>}, {@code paused} a boolean,
     *       {@code device} absent or the device's UUID (anything else reads as absent: the pause is then by index);</li>
     *   <li>{@code submitted}: {@code no} as for {@code seen}, {@code command}, {@code source}, {@code owner},
     *       {@code cwd} strings, {@code vram} null or MiB, {@code gpus} in [1, 1024], {@code timeout_ns}
     *       null or positive, {@code retries} in [0, 1000], {@code submitted_at_ms} at least 0, {@code env}
     *       absent or an object of strings, {@code line} and {@code request_id} absent or strings, and
     *       {@code output} absent or an absolute path;</li>
     *   <li>{@code stopping}: {@code reason} {@code cancelled}, {@code timeout}, {@code preempted} or
     *       {@code time_slice}, {@code max_job_time} absent or a boolean, {@code ticker_ns} absent or at least 0;</li>
     *   <li>{@code slurm_submitted}: {@code slurm_job} in [1, 2^32 − 1] (Slurm's job ids are 32-bit),
     *       {@code gres} a string;</li>
     *   <li>{@code oom}: {@code attempts} in [1, 10^6], {@code next_vram} null or MiB in
     *       [1, {@link io.gpusched.jobs.Units#MAX_MIB}];</li>
     *   <li>{@code done}: {@code status} a terminal status ({@link JobRecord#TERMINAL}),
     *       {@code returncode} an {@code int}, {@code peak_mib} an object from index to MiB (the index each
     *       device was listed at when the run ended: its {@code started} line's, unless the GPUs were renumbered under it)
     *       ({@code long}, at least 0), {@code avg_util} null or a finite number (shown only, so any backend's value reads back),
     *       {@code vram_timeline} absent or an array of at most 1024 {@code [ms, MiB]} pairs of whole numbers
     *       at least 0.</li>
     * </ul>
     * Whole numbers must be JSON integer literals, and nothing is rounded, truncated or wrapped.
     *
     * @param line one line of the journal
     * @return the event; empty for a well-formed line of an event type this version does not know
     * @throws IllegalArgumentException when the line is not a journal event (torn, garbage, a missing
     *     key or a field of the wrong type or range); nothing else
     */
    public Optional<JournalEvent> decode(String line) {
        return decodeEntry(line).map(JournalEntry::event);
    }

    /**
     * Reads one line strictly, as {@link #decode}, with the time it was written.
     *
     * @param line one line of the journal
     * @return the event and its {@code at_ms}; empty for a well-formed line of an event type this version
     *     does not know
     * @throws IllegalArgumentException when the line is not a journal event; nothing else
     */
    public Optional<JournalEntry> decodeEntry(String line) {
        EventFields f = EventFields.parse(json, line);
        OptionalLong at = f.optionalWhole("at_ms", 0, Long.MAX_VALUE);
        return event(f).map(e -> new JournalEntry(e, at));
    }

    /**
     * What a {@code done} line that {@link #decodeEntry} refuses still says: that its job ended. A
     * field out of range or of an unknown value (a damaged or hand-edited line) must not make an ended
     * job run again, so the line is kept as an end: its status when it is a terminal one, else
     * {@code failed}; its return code when readable, else -1; no peaks, utilisation or timeline.
     *
     * @param line one journal line that {@link #decodeEntry} refused
     * @return the end it still records; empty unless it is a JSON object with a readable {@code key}
     *     and {@code "event": "done"}
     */
    public Optional<JournalEntry> salvageEnd(String line) {
        try {
            EventFields f = EventFields.parse(json, line);
            String k = f.nonEmptyString("key");
            if (!"done".equals(f.string("event")) || k.indexOf('\uFFFD') >= 0) {
                return Optional.empty();
            }
            String status = orNull(() -> f.string("status"));
            if (status == null || !JobRecord.TERMINAL.contains(status)) {
                status = io.gpusched.model.JobState.FAILED.journalName();
            }
            Long rc = orNull(() -> f.whole("returncode", Integer.MIN_VALUE, Integer.MAX_VALUE));
            OptionalLong at = java.util.Objects.requireNonNullElse(orNull(() -> f.optionalWhole("at_ms", 0, Long.MAX_VALUE)),
                    OptionalLong.empty());
            return Optional.of(new JournalEntry(new JournalEvent.Done(k, status, rc == null ? -1 : (int) (long) rc,
                    java.util.Map.of(), java.util.OptionalDouble.empty(), java.util.List.of()), at));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static <T> T orNull(java.util.function.Supplier<T> field) {
        try {
            return field.get();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Optional<JournalEvent> event(EventFields f) {
        String k = f.nonEmptyString("key");
        String ev = f.string("event");
        switch (ev) {
            case "seen":
                return Optional.of(new JournalEvent.Seen(k, (int) f.whole("no", 1, MAX_NO), f.string("command")));
            case "started": {
                java.util.List<Integer> gpus = f.wholeList("gpus", 0, Integer.MAX_VALUE);
                return Optional.of(new JournalEvent.Started(k, f.whole("pgid", 2, Integer.MAX_VALUE), gpus,
                        f.optionalNullableWhole("vram", 1, Units.MAX_MIB), f.optionalString("rule"),
                        f.deviceNames("devices", gpus.size()), f.optionalWhole("ticker_ns", 0, Long.MAX_VALUE)));
            }
            case "submitted":
                return Optional.of(new JournalEvent.Submitted(k, (int) f.whole("no", 1, MAX_NO), f.string("command"),
                        f.nullableWhole("vram", 1, Units.MAX_MIB), (int) f.whole("gpus", 1, 1024),
                        f.nullableWhole("timeout_ns", 1, Long.MAX_VALUE), (int) f.whole("retries", 0, 1000),
                        f.string("source"), f.string("owner"), f.string("cwd"),
                        f.whole("submitted_at_ms", 0, Long.MAX_VALUE), f.optionalStringMap("env"),
                        f.optionalString("line"), absolute(f.optionalString("output"), "output"),
                        f.optionalString("request_id"), umask(f.optionalWhole("umask", 0, 0777))));
            case "launching":
                return Optional.of(new JournalEvent.Launching(k, f.whole("run", 1, Long.MAX_VALUE - 1),
                        f.wholeList("gpus", 0, Integer.MAX_VALUE)));
            case "interrupted":
                return Optional.of(new JournalEvent.Interrupted(k));
            case "compacted":
                if (!k.equals(JournalEvent.Compacted.KEY)) {
                    throw new IllegalArgumentException("\"key\" of a compacted event must be " + JournalEvent.Compacted.KEY);
                }
                return Optional.of(new JournalEvent.Compacted(k, (int) f.whole("next_no", 1, MAX_NO + 1L),
                        f.whole("next_run", 1, Long.MAX_VALUE)));
            case "gpu_paused":
                int gpu = (int) f.whole("gpu", 0, Integer.MAX_VALUE);
                if (!k.equals(JournalEvent.GpuPaused.keyOf(gpu))) {
                    throw new IllegalArgumentException("\"key\" of a gpu_paused event must be gpu" + gpu);
                }
                return Optional.of(new JournalEvent.GpuPaused(k, gpu, f.deviceName("device"), f.bool("paused")));
            case "learned":
                if (!JournalEvent.Learned.isKey(k)) {
                    throw new IllegalArgumentException("\"key\" of a learned event must be cmd:<hash> or rule:<name>");
                }
                return Optional.of(new JournalEvent.Learned(k, (int) f.whole("no", 1, MAX_NO), f.whole("peak_mib", 1,
                        Long.MAX_VALUE)));
            case "retry":
                return Optional.of(new JournalEvent.Retry(k));
            case "requeued":
                return Optional.of(new JournalEvent.Requeued(k, f.string("reason")));
            case "stopping":
                return Optional.of(new JournalEvent.Stopping(k, f.string("reason"), f.optionalBool("max_job_time"),
                        f.optionalWhole("ticker_ns", 0, Long.MAX_VALUE)));
            case "slurm_submitted":
                return Optional.of(new JournalEvent.SlurmSubmitted(k, f.whole("slurm_job", 1, MAX_SLURM_JOB),
                        f.string("gres")));
            case "oom":
                return Optional.of(new JournalEvent.Oom(k, (int) f.whole("attempts", 1, MAX_ATTEMPTS),
                        f.nullableWhole("next_vram", 1, Units.MAX_MIB)));
            case "done":
                String status = f.string("status");
                if (!JobRecord.TERMINAL.contains(status)) {
                    throw new IllegalArgumentException("\"status\" is not one of " + JobRecord.TERMINAL);
                }
                return Optional.of(new JournalEvent.Done(k, status, (int) f.whole("returncode", Integer.MIN_VALUE, Integer.MAX_VALUE),
                        f.wholeByIndex("peak_mib", Integer.MAX_VALUE, 0, Long.MAX_VALUE),
                        f.nullableNumber("avg_util", -Double.MAX_VALUE, Double.MAX_VALUE),
                        f.optionalPairs("vram_timeline", MAX_TIMELINE_POINTS, 0, Long.MAX_VALUE).stream()
                                .map(p -> new JournalEvent.VramPoint(p[0], p[1])).toList()));
            default:
                return Optional.empty();
        }
    }

    /** A path field that must be absolute when present: a job's output is never relative to the daemon's directory. */
    private static Optional<String> absolute(Optional<String> path, String name) {
        if (path.isPresent() && !path.get().startsWith("/")) {
            throw new IllegalArgumentException("\"" + name + "\" must be an absolute path");
        }
        return path;
    }
}
