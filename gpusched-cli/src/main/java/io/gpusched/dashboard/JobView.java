package io.gpusched.dashboard;

import io.gpusched.model.JobResult;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.VramTimeline;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One job as {@code /api/jobs/N} shows it, written by the event stream's JSON rules (snake case names).
 *
 * @param no display number
 * @param state {@code running}, {@code pending}, {@code held} (waiting for its dependencies),
 *     {@code ended} or {@code interrupted}
 * @param status how it ended ({@code ok}, {@code failed}, ...), for an ended job
 * @param owner the user it runs for, when known
 * @param command shell command
 * @param gpus its GPUs (the last attempt's for an ended job); empty while pending
 * @param declaredMib its per-GPU declaration, in MiB, when declared (for a running job: what placement
 *     counts for it)
 * @param peakMib its largest per-GPU peak so far, in MiB
 * @param reason why it waits, for a pending or held job
 * @param timeline its memory over time, while the scheduler keeps it
 */
public record JobView(int no, String state, Optional<String> status, Optional<String> owner, String command,
                      List<Integer> gpus, OptionalLong declaredMib, long peakMib, Optional<String> reason,
                      Optional<VramTimeline> timeline) {
    /**
     * Copies the list.
     *
     * @param no see {@link #no()}
     * @param state see {@link #state()}
     * @param status see {@link #status()}
     * @param owner see {@link #owner()}
     * @param command see {@link #command()}
     * @param gpus see {@link #gpus()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @param reason see {@link #reason()}
     * @param timeline see {@link #timeline()}
     */
    public JobView {
        gpus = List.copyOf(gpus);
    }

    /** @return job {@code no} as the snapshot shows it, with its timeline; empty when the snapshot has no such job */
    static Optional<JobView> of(QueueSnapshot s, int no, Optional<VramTimeline> timeline) {
        StatusBoard b = s.board();
        for (StatusBoard.Running r : b.running()) {
            if (r.no() == no) {
                OptionalLong declared = s.memory().stream().flatMap(m -> m.jobs().stream()).filter(j -> j.no() == no)
                        .map(QueueSnapshot.JobMemory::declaredMib).findFirst().orElse(OptionalLong.empty());
                return Optional.of(new JobView(no, "running", Optional.empty(), r.owner(), r.command(), r.gpus(), declared,
                        r.peakMib(), Optional.empty(), timeline));
            }
        }
        for (StatusBoard.Pending p : b.pending()) {
            if (p.no() == no) {
                return Optional.of(new JobView(no, p.held() ? "held" : "pending", Optional.empty(), p.owner(), p.command(),
                        List.of(), p.declaredMib(), timeline.map(VramTimeline::peakMib).orElse(0L),
                        Optional.of(p.reason()), timeline));
            }
        }
        for (List<JobResult> results : List.of(b.done(), b.earlier())) {
            for (JobResult r : results) {
                if (r.no() == no) {
                    return Optional.of(new JobView(no, "ended", Optional.of(r.status().journalName()), r.owner(), r.command(),
                            r.gpus(), r.declaredMib(), r.overallPeakMib(), Optional.empty(), timeline));
                }
            }
        }
        for (StatusBoard.Interrupted i : b.interrupted()) {
            if (i.no() == no) {
                return Optional.of(new JobView(no, "interrupted", Optional.empty(), Optional.empty(), i.command(), i.gpus(),
                        OptionalLong.empty(), timeline.map(VramTimeline::peakMib).orElse(0L), Optional.empty(), timeline));
            }
        }
        return Optional.empty();
    }
}
