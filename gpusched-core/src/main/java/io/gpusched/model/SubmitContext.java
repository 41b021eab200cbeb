package io.gpusched.model;

import io.gpusched.Scheduler;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who submitted a job and where and how it runs: the owner recorded with it, the directory its command
 * starts in, the environment it gets, and where its output goes. All are journaled with the submission,
 * so a job rebuilt after a crash runs exactly as submitted.
 *
 * @param owner the submitting user's name, as recorded in the journal and shown to readers; a scheduler
 *     running as root runs the job as this user (its uid, primary group and groups, set by
 *     {@code gpusched-runas} before anything of the submission is used), its output going to
 *     {@code workDir/gpusched-<number>.log}, opened as that user
 * @param workDir an absolute path; the job's command starts there. If it no longer exists when the job
 *     is placed, the job cannot start and stays pending with a warning naming the directory
 * @param environment the whole environment the command gets (the scheduler still sets
 *     {@code CUDA_VISIBLE_DEVICES}, {@code GPUSCHED_*} and its own extra variables over it); empty means
 *     the scheduler's own environment, as for a jobs-file line, except for a job a root scheduler runs
 *     as its owner: that one gets the owner's login basics ({@code HOME}, {@code USER}, {@code LOGNAME},
 *     {@code SHELL} from the passwd entry and {@code PATH=/usr/local/bin:/usr/bin:/bin}), never root's
 * @param output the file the job's stdout and stderr are appended to (created if missing; every attempt
 *     appends to it), as Slurm's {@code --output}; an absolute path. Empty means the default:
 *     {@code workDir/gpusched-<number>.log} for a job a root scheduler runs as its owner, else
 *     {@code <log-dir>/job<NNN>_gpu<i>.log}, one per attempt's GPUs. A root scheduler's job opens it as
 *     its owner, so it can only write where the owner may
 * @param requestId the submitter's name for this submission, so it can retry one whose answer it never
 *     got: a submission with the request id of one the journal holds from the same owner queues nothing
 *     and gets that job's number (and waits for its result). The journal keeps every submission that
 *     has not ended and the last 1000 that have, so a repeat is recognised at least that long
 * @param umask the file-mode creation mask the command runs with, 0 to 0777 (a client sends its own, so
 *     a {@code umask 077} user's outputs stay private); empty means the scheduler's for a job it runs
 *     as its own user, and {@code 077} for one a root scheduler runs as its owner
 */
public record SubmitContext(String owner, Path workDir, Optional<Map<String, String>> environment,
                            Optional<Path> output, Optional<String> requestId, OptionalInt umask) {
    /** The longest request id, in characters. */
    public static final int MAX_REQUEST_ID = 200;

    /**
     * Checks the fields and copies the environment.
     *
     * @param owner see {@link #owner()}; not blank
     * @param workDir see {@link #workDir()}; absolute
     * @param environment see {@link #environment()}; no name empty or holding {@code =}, no NUL anywhere, valid
     *     Unicode (no unpaired surrogate)
     * @param output see {@link #output()}; absolute when present
     * @param requestId see {@link #requestId()}; not blank, at most {@link #MAX_REQUEST_ID} characters, valid
     *     Unicode (no unpaired surrogate)
     * @param umask see {@link #umask()}; 0 to 0777
     * @throws IllegalArgumentException if one is not as described
     */
    public SubmitContext {
        Objects.requireNonNull(umask, "umask");
        if (umask.isPresent() && (umask.getAsInt() < 0 || umask.getAsInt() > 0777)) {
            throw new IllegalArgumentException("umask must be 0 to 0777 (octal 000 to 777), got " + umask.getAsInt());
        }
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(requestId, "requestId");
        if (requestId.isPresent() && (requestId.get().isBlank() || requestId.get().length() > MAX_REQUEST_ID)) {
            throw new IllegalArgumentException("a request id must be 1 to " + MAX_REQUEST_ID + " characters, not blank");
        }
        if (requestId.isPresent() && unpairedSurrogate(requestId.get())) {
            // Journaled in UTF-8 it would read back as '?': a retry after a restart would not be known for a repeat.
            throw new IllegalArgumentException("a request id must be valid Unicode: it holds an unpaired UTF-16 surrogate"
                    + " (a \\uD800-\\uDFFF escape alone)");
        }
        if (output.isPresent() && !output.get().isAbsolute()) {
            throw new IllegalArgumentException("output must be an absolute path, got " + output.get());
        }
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
            if (unpairedSurrogate(name) || unpairedSurrogate(value)) {
                // Journaled in UTF-8 it would read back as '?': after a restart the job would get another value.
                throw new IllegalArgumentException("environment entry '" + name.replaceAll("[\\uD800-\\uDFFF]", "?")
                        + "' must be valid Unicode: it holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape alone)");
            }
        }));
    }

    /** Whether a string holds a surrogate that is not half of a pair: not Unicode, and not encodable in UTF-8. */
    private static boolean unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A context with the default output and no request id.
     *
     * @param owner see {@link #owner()}
     * @param workDir see {@link #workDir()}
     * @param environment see {@link #environment()}
     * @throws IllegalArgumentException as the canonical constructor
     */
    public SubmitContext(String owner, Path workDir, Optional<Map<String, String>> environment) {
        this(owner, workDir, environment, Optional.empty(), Optional.empty(), OptionalInt.empty());
    }

    /**
     * A context with the scheduler's umask.
     *
     * @param owner see {@link #owner()}
     * @param workDir see {@link #workDir()}
     * @param environment see {@link #environment()}
     * @param output see {@link #output()}
     * @param requestId see {@link #requestId()}
     * @throws IllegalArgumentException as the canonical constructor
     */
    public SubmitContext(String owner, Path workDir, Optional<Map<String, String>> environment, Optional<Path> output,
                         Optional<String> requestId) {
        this(owner, workDir, environment, output, requestId, OptionalInt.empty());
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
        return new SubmitContext(owner, dir.toAbsolutePath().normalize(), environment, output, requestId, umask);
    }

    /**
     * @param env the whole environment the job gets, e.g. a client's {@code System.getenv()}
     * @return this context with that environment captured
     */
    public SubmitContext withEnvironment(Map<String, String> env) {
        return new SubmitContext(owner, workDir, Optional.of(env), output, requestId, umask);
    }

    /**
     * @param file where the job's output goes; a relative path is taken relative to {@link #workDir()},
     *     as a shell in that directory would (so set the working directory first)
     * @return this context with that output file
     */
    public SubmitContext withOutput(Path file) {
        return new SubmitContext(owner, workDir, environment, Optional.of(workDir.resolve(file).normalize()), requestId, umask);
    }

    /**
     * @param id the submitter's name for this submission (see {@link #requestId()})
     * @return this context with that request id
     * @throws IllegalArgumentException if it is blank or too long
     */
    public SubmitContext withRequestId(String id) {
        return new SubmitContext(owner, workDir, environment, output, Optional.of(id), umask);
    }

    /**
     * @param mask the file-mode creation mask the job runs with (see {@link #umask()})
     * @return this context with that umask
     * @throws IllegalArgumentException if it is not 0 to 0777
     */
    public SubmitContext withUmask(int mask) {
        return new SubmitContext(owner, workDir, environment, output, requestId, OptionalInt.of(mask));
    }
}
