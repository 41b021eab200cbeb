package io.gpusched.engine;

import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The queue's source: a live jobs file (re-parsed only when its size, mtime or inode changed), or a
 * fixed list, plus jobs submitted through the API. A malformed or unreadable file keeps the last good
 * list; each distinct error is reported once.
 */
final class JobsSource {
    private final Optional<Path> file;
    private final List<JobSpec> fixed;
    private final List<JobSpec> submitted = new ArrayList<>();
    private List<JobSpec> fromFile = List.of();
    private Object stamp;
    private String lastError;
    private long version;
    private List<JobSpec> all;

    JobsSource(Optional<Path> file, List<JobSpec> fixed) {
        this.file = file;
        this.fixed = rekey(fixed);
    }

    boolean live() {
        return file.isPresent();
    }

    /**
     * Re-reads the file if it changed.
     *
     * @return a new error to report once, if the file could not be read or parsed
     */
    Optional<String> refresh() {
        if (file.isEmpty()) {
            return Optional.empty();
        }
        Path f = file.get();
        Object now;
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            now = List.of(a.size(), a.lastModifiedTime(), String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return error("jobs file " + f + " unreadable (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + "); keeping the previous queue");
        }
        if (now.equals(stamp)) {
            return Optional.empty();
        }
        try {
            List<JobSpec> parsed = JobsFileParser.parse(f);
            if (!parsed.equals(fromFile)) {
                fromFile = parsed;
                changed();
            }
            stamp = now;
            lastError = null;
            return Optional.empty();
        } catch (JobSpecException e) {
            return error(e.getMessage() + " — keeping the previous queue until the file is fixed");
        } catch (UncheckedIOException e) {
            return error(e.getMessage() + "; keeping the previous queue");
        }
    }

    private Optional<String> error(String message) {
        stamp = null;
        if (Objects.equals(message, lastError)) {
            return Optional.empty();
        }
        lastError = message;
        return Optional.of(message);
    }

    /**
     * @return a number that changes whenever {@link #jobs()} does (a re-parse that gave a different
     *     list, or a submission), so the engine can skip work over an unchanged queue
     */
    long version() {
        return version;
    }

    private void changed() {
        version++;
        all = null;
    }

    /** The jobs in queue order: file (or fixed list) first, then submissions; an immutable list, cached per version. */
    List<JobSpec> jobs() {
        if (all == null) {
            List<JobSpec> list = new ArrayList<>(file.isPresent() ? fromFile : fixed);
            list.addAll(submitted);
            all = List.copyOf(list);
        }
        return all;
    }

    /**
     * Adds an API submission, keyed as if it were the next identical line after the file's and the
     * earlier submissions', so it never collides with them.
     */
    JobSpec submit(JobSpec spec) {
        int occurrence = 0;
        for (JobSpec j : jobs()) {
            if (j.command().equals(spec.command())) {
                occurrence++;
            }
        }
        JobSpec keyed = withKey(spec, JobKeys.key(spec.command(), occurrence));
        submitted.add(keyed);
        changed();
        return keyed;
    }

    private static List<JobSpec> rekey(List<JobSpec> jobs) {
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        List<JobSpec> out = new ArrayList<>();
        for (JobSpec j : jobs) {
            int occurrence = seen.merge(j.command(), 1, Integer::sum) - 1;
            out.add(withKey(j, JobKeys.key(j.command(), occurrence)));
        }
        return List.copyOf(out);
    }

    private static JobSpec withKey(JobSpec j, String key) {
        return new JobSpec(j.command(), j.vramMib(), j.gpus(), j.timeout(), j.retries(), j.cancel(), j.line(), key);
    }
}
