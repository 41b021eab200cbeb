package io.gpusched;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who submitted a job and where and how it runs: the owner recorded with it, the directory its command
 * starts in, and the environment it gets. All three are journaled with the submission, so a job rebuilt
 * after a crash runs exactly as submitted.
 *
 * @param owner the submitting user's name, as recorded in the journal and shown to readers; a scheduler
 *     running as root runs the job as this user ({@code setpriv}: the user's uid, primary group and
 *     groups), its output going to {@code workDir/gpusched-<number>.log}, written as that user
 * @param workDir an absolute path; the job's command starts there. If it no longer exists when the job
 *     is placed, the job cannot start and stays pending with a warning naming the directory
 * @param environment the whole environment the command gets (the scheduler still sets
 *     {@code CUDA_VISIBLE_DEVICES}, {@code GPUSCHED_*} and its own extra variables over it); empty means
 *     the scheduler's own environment, as for a jobs-file line
 */
public record SubmitContext(String owner, Path workDir, Optional<Map<String, String>> environment) {
    /**
     * Checks the fields and copies the environment.
     *
     * @param owner see {@link #owner()}; not blank
     * @param workDir see {@link #workDir()}; absolute
     * @param environment see {@link #environment()}; no name empty or holding {@code =}, no NUL anywhere
     * @throws IllegalArgumentException if one is not as described
     */
    public SubmitContext {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(environment, "environment");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("owner must not be blank");
        }
        if (!workDir.isAbsolute()) {
            throw new IllegalArgumentException("workDir must be an absolute path, got " + workDir);
        }
        environment = environment.map(Map::copyOf);
        environment.ifPresent(env -> env.forEach((name, value) -> {
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("not a valid environment entry: '" + name + "'");
            }
        }));
    }

    /**
     * This process's user and working directory, and the scheduler's environment: what
     * {@link Scheduler#submit(io.gpusched.jobs.JobSpec)} uses.
     *
     * @return the context of the calling JVM
     */
    public static SubmitContext current() {
        String user = System.getProperty("user.name", "");
        return new SubmitContext(user.isBlank() ? "?" : user, Path.of("").toAbsolutePath(), Optional.empty());
    }

    /**
     * @param dir the directory the job starts in
     * @return this context with another working directory (made absolute)
     */
    public SubmitContext withWorkDir(Path dir) {
        return new SubmitContext(owner, dir.toAbsolutePath().normalize(), environment);
    }

    /**
     * @param env the whole environment the job gets, e.g. a client's {@code System.getenv()}
     * @return this context with that environment captured
     */
    public SubmitContext withEnvironment(Map<String, String> env) {
        return new SubmitContext(owner, workDir, Optional.of(env));
    }
}
