package io.gpusched.cli;

import io.gpusched.protocol.Answer;
import java.util.Map;

/** What {@code gpusched submit --dry-run} prints of the daemon's {@code preview} answer. */
final class DryRun {
    private DryRun() {
    }

    /**
     * @param p the answer: start on GPUs, or wait and why (a job that could never run is refused before)
     * @param json whether to print {@code {"start":[0,1]}} or {@code {"waits":"..."}} instead of words
     * @return one line: {@code would start now on gpu [0]}, or {@code would wait: REASON}
     */
    static String say(Answer.Preview p, boolean json) {
        if (json) {
            return io.gpusched.event.JsonEventWriter.valueToJson(p.waits().isPresent()
                    ? Map.of("waits", p.waits().get()) : Map.of("start", p.gpus()));
        }
        return p.waits().map(w -> "would wait: " + DisplayWidth.clean(w)).orElseGet(() -> "would start now on gpu " + p.gpus())
                + " (dry run: nothing was queued)";
    }
}
