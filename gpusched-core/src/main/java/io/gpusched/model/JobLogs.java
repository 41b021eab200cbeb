package io.gpusched.model;

import io.gpusched.Scheduler;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Scheduler#logs(int)} reads of a job in one step of the scheduler's loop: who it runs for,
 * where its output goes and where it stands. One step, so the owner a caller is checked against is the
 * owner of the output named: no job can take the number between the two.
 *
 * @param owner who the job runs for: its submitter, or the scheduler's own user for a jobs-file line
 * @param outputFile the file its output goes to when that is not the log directory's
 *     ({@link Scheduler#outputFile(int)}); empty for log-directory logs
 * @param state where it stands: running, pending (also waiting to run again) or ended
 */
public record JobLogs(String owner, Optional<Path> outputFile, JobStage state) {
    /**
     * @param owner see the record
     * @param outputFile see the record
     * @param state see the record
     */
    public JobLogs {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(outputFile, "outputFile");
        Objects.requireNonNull(state, "state");
    }
}
