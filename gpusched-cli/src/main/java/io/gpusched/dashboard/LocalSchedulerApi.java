package io.gpusched.dashboard;

import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.JobResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code /status} and {@code /jobs}: the two JSON documents local-gpu-scheduler's server answers, in its
 * field names, so its users' {@code curl … | jq} scripts keep working against the dashboard's port (with
 * the dashboard's token). {@code /status}: {@code service}, {@code version}, {@code uptime_s}, {@code port},
 * {@code gpus_total}, {@code gpus_allocated} (indices of GPUs a running job holds), {@code jobs_running},
 * {@code jobs_queued}, {@code jobs_total}. {@code /jobs}: one object per job of the queue (running, then
 * pending, then ended), each {@code id} (the job's number), {@code status} ({@code running},
 * {@code queued}, {@code held}, {@code interrupted}, or the ended job's status as the journal spells it:
 * {@code ok}, {@code failed}, …), {@code gpus}, {@code num_gpus} and, for a running job whose start this
 * dashboard saw, {@code pid} (its session's leader). Keys come sorted, as in all the dashboard's JSON;
 * scripts read them by name.
 */
final class LocalSchedulerApi {
    /** What {@code /status} names the service. */
    static final String SERVICE = "gpusched";

    private LocalSchedulerApi() {
    }

    /**
     * @param snap the queue now
     * @param version which gpusched this is
     * @param since when this daemon started
     * @param now the time of the answer
     * @param port the dashboard's port
     * @return {@code /status}'s JSON
     */
    static String status(QueueSnapshot snap, String version, Instant since, Instant now, int port) {
        StatusBoard b = snap.board();
        TreeSet<Integer> allocated = new TreeSet<>();
        b.running().forEach(r -> allocated.addAll(r.gpus()));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("service", SERVICE);
        out.put("version", version);
        out.put("uptime_s", Math.max(0, Duration.between(since, now).toSeconds()));
        out.put("port", port);
        out.put("gpus_total", snap.gpus().size());
        out.put("gpus_allocated", List.copyOf(allocated));
        out.put("jobs_running", b.running().size());
        out.put("jobs_queued", b.pending().size());
        out.put("jobs_total", b.running().size() + b.pending().size() + b.done().size() + b.earlier().size()
                + b.interrupted().size());
        return JsonEventWriter.valueToJson(out) + "\n";
    }

    /**
     * @param snap the queue now
     * @param pids the session leader of each running job by number, as far as known
     * @return {@code /jobs}'s JSON: an array
     */
    static String jobs(QueueSnapshot snap, Map<Integer, Long> pids) {
        StatusBoard b = snap.board();
        List<Map<String, Object>> out = new ArrayList<>();
        for (StatusBoard.Running r : b.running()) {
            Map<String, Object> j = job(r.no(), "running", r.gpus());
            if (pids.containsKey(r.no())) {
                j.put("pid", pids.get(r.no()));
            }
            out.add(j);
        }
        for (StatusBoard.Pending p : b.pending()) {
            out.add(job(p.no(), p.held() ? "held" : "queued", List.of()));
        }
        for (StatusBoard.Interrupted i : b.interrupted()) {
            out.add(job(i.no(), "interrupted", i.gpus()));
        }
        for (List<JobResult> ended : List.of(b.earlier(), b.done())) {
            for (JobResult r : ended) {
                out.add(job(r.no(), r.status().journalName(), r.gpus()));
            }
        }
        return JsonEventWriter.valueToJson(out) + "\n";
    }

    private static Map<String, Object> job(int no, String status, List<Integer> gpus) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("id", no);
        j.put("status", status);
        j.put("gpus", gpus);
        j.put("num_gpus", gpus.size());
        return j;
    }
}
