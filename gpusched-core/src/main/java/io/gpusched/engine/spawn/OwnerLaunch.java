package io.gpusched.engine.spawn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a root scheduler starts a submission as the user who sent it, with nothing of that user's reaching
 * a process that runs as root.
 *
 * <p>The run's root process (the spawn server's monitor, or where none runs the root {@link #WRAPPER}
 * shell) runs as root with {@link #ROOT_ENVIRONMENT} (never the submitter's) in {@code /}; it writes the
 * run's pid and exit files, as for every run, and between them starts {@code gpusched-runas}
 * ({@code src/main/c/runas.c}) on the run's spec file. That program drops to the
 * user's uid, gid and groups first, and only then applies what the user sent: the umask, the output file
 * (opened as the user, never through a symbolic link, never another user's), the working directory,
 * the environment (theirs, or their login basics when they sent none) and the command, through
 * {@code /bin/sh -c}. The spec file is written here, mode 0600 in the scheduler's own {@code runs/}
 * directory, and removed by {@code gpusched-runas} once read, so the environment it holds lies on disk
 * only between the launch and the exec.
 */
public final class OwnerLaunch {
    /** The program's name beside this class in the jar. */
    public static final String RESOURCE = "gpusched-runas";

    /** The whole environment of the root wrapper: fixed here, so no submitter's variable reaches root. */
    static final Map<String, String> ROOT_ENVIRONMENT = Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL", "C");

    /**
     * The root wrapper. $1 the pid file, $2 the exit file, then gpusched-runas and its spec file. It
     * expands no word of the submitter's: the command and everything else travel in the spec file.
     */
    static final String WRAPPER = "trap : TERM; __gs_p=$1 __gs_e=$2; shift 2; printf '%s\\n' $$ >\"$__gs_p\"; "
            + "( trap 'exit 143' TERM; exec \"$@\" ); __gs_rc=$?; printf '%s\\n' $__gs_rc >\"$__gs_e\"; exit $__gs_rc";

    /** The umask of a job run as its owner whose client sent none: private. */
    public static final int DEFAULT_UMASK = 0077;

    /** The exit status gpusched-runas ends with when the command could not be started. */
    static final int NOT_STARTED = 126;

    /** How most of its lines end; the scheduler says it once itself. */
    private static final String DID_NOT_RUN = "; the job did not run";

    /** How each line gpusched-runas writes about a refusal starts. */
    static final String FAILURE_PREFIX = "gpusched-runas: ";

    private OwnerLaunch() {
    }

    /**
     * What gpusched-runas is told, in its file's format: NUL-terminated fields.
     *
     * @param user the submitter's name, as the kernel named them
     * @param cwd where the command starts (absolute)
     * @param output the file its output is appended to (absolute)
     * @param umask the creation mask, 0 to 0777
     * @param environment the submitter's whole environment, or empty for their login basics
     * @param runVariables what the scheduler sets over it ({@code CUDA_VISIBLE_DEVICES}, the run token, ...)
     * @param command the shell text {@code /bin/sh -c} runs
     * @return the file's bytes
     * @throws IllegalArgumentException if a field holds a NUL (it could not be told apart)
     */
    static byte[] spec(String user, Path cwd, Path output, int umask, Optional<Map<String, String>> environment,
                       Map<String, String> runVariables, String command) {
        Map<String, String> env = new java.util.LinkedHashMap<>(environment.orElse(Map.of()));
        env.putAll(runVariables);
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        List<String> head = List.of("gpusched-runas 1", user, cwd.toString(), output.toString(),
                Integer.toOctalString(umask), environment.isPresent() ? "given" : "login", command,
                Integer.toString(env.size()));
        head.forEach(f -> field(out, f));
        env.forEach((k, v) -> field(out, k + "=" + v));
        return out.toByteArray();
    }

    private static void field(ByteArrayOutputStream out, String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a NUL cannot be passed to a job (in its command, paths or environment)");
        }
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    /**
     * Writes a spec file, readable and writable by the scheduler's user only from its creation on.
     *
     * @param file where ({@code runs/jobNNN.runR.as}); an older file of that name is replaced
     * @param spec its bytes, from {@link #spec}
     */
    static void write(Path file, byte[] spec) throws IOException {
        Files.deleteIfExists(file);
        try (FileChannel ch = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer b = ByteBuffer.wrap(spec);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    /**
     * gpusched-runas's refusal of an exec for the user's process limit: {@code cannot run /bin/sh as NAME:
     * STRERROR(EAGAIN): NAME has as many processes as the scheduler's limit allows (RLIMIT_NPROC N)}. No other
     * of its lines starts with {@code cannot run /bin/sh as}, and this one holds nothing the user chose but
     * her name (a directory or output named like it starts its line otherwise), so she cannot make another
     * refusal pass for it.
     */
    private static final java.util.regex.Pattern AT_PROCESS_LIMIT = java.util.regex.Pattern.compile(
            "cannot run /bin/sh as ([^:]+): [^:]+: \\1 has as many processes as the scheduler's limit allows"
                    + " \\(RLIMIT_NPROC [0-9]+\\)");

    /**
     * @param cause a refusal, as {@link #failure} gives it
     * @return whether it is the one for the user's process limit ({@code RLIMIT_NPROC}), which passes as her
     *     other processes end: her job is tried again later ({@link io.gpusched.outcome.ProcessLimitRetry})
     */
    public static boolean atProcessLimit(String cause) {
        return AT_PROCESS_LIMIT.matcher(cause).matches();
    }

    /**
     * Why a run as its owner did not start its command, from the end of its wrapper's log.
     *
     * @param exitCode the run's exit status
     * @param wrapperLogTail the end of the log the root wrapper wrote to
     * @return gpusched-runas's reason, without its prefix; empty when the command ran
     */
    public static Optional<String> failure(int exitCode, String wrapperLogTail) {
        if (exitCode != NOT_STARTED) {
            return Optional.empty();
        }
        String last = EnvironmentScript.lastLine(wrapperLogTail);
        if (!last.startsWith(FAILURE_PREFIX)) {
            return Optional.empty();
        }
        String why = last.substring(FAILURE_PREFIX.length());
        return Optional.of(why.endsWith(DID_NOT_RUN) ? why.substring(0, why.length() - DID_NOT_RUN.length()) : why);
    }
}
