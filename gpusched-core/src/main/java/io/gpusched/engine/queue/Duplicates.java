package io.gpusched.engine.queue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.engine.table.JobTable;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.model.DuplicateJobException;
import io.gpusched.model.JobState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The submissions by content, for {@code unique}: a hash index from what makes two submissions the same
 * job (its owner, its working directory and {@link JobSpec#sameJobLine()}) to the latest submission of it
 * that still stands for it. A lookup costs one SHA-256 of the line and one hash-map probe, however many
 * jobs are queued: submissions are a hot path.
 *
 * <p>The owner is part of what is hashed, so one user's job never matches, and so never reveals,
 * another's. The working directory too: {@code python train.py} in two directories is two jobs. The
 * environment is not (a shell's variables differ from one terminal to the next); {@code conda=} and
 * {@code setup=} are attributes, so they count.
 *
 * <p>The index is built from the journal at the first {@code unique} submission, so a restarted
 * scheduler still knows the jobs that ended ok before it; after that each submission is added as it is
 * taken. An entry whose job ended any way but ok, or that compaction forgot, is dropped when found. Used
 * by the engine's loop only.
 */
final class Duplicates {
    /** A 128-bit digest of what makes two submissions the same job. */
    record Fingerprint(long high, long low) {
    }

    private final Supplier<JournalState> state;
    private final JobTable table;
    private final Function<JournalEvent.Submitted, JobSpec> specOf;
    /**
     * Null until the first fingerprint: looking the algorithm up is most of building an engine that takes
     * no {@code unique} submission (a replay builds one per workload).
     */
    private MessageDigest sha;
    /** Null until the first {@code unique} submission asks. */
    private Map<Fingerprint, String> byContent;

    /**
     * @param state the journal's fold, as it stands, for its submissions
     * @param table the jobs, for where each stands
     * @param specOf a journaled submission's job, as a restart queues it again
     */
    Duplicates(Supplier<JournalState> state, JobTable table, Function<JournalEvent.Submitted, JobSpec> specOf) {
        this.state = state;
        this.table = table;
        this.specOf = specOf;
    }

    /**
     * @param owner who submits
     * @param workDir where it would start, as journaled
     * @param spec the job as submitted
     * @return its fingerprint
     */
    Fingerprint fingerprint(String owner, String workDir, JobSpec spec) {
        if (sha == null) {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform has SHA-256", e);
            }
        }
        sha.reset();
        sha.update(owner.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(workDir.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        ByteBuffer d = ByteBuffer.wrap(sha.digest(spec.sameJobLine().getBytes(StandardCharsets.UTF_8)));
        return new Fingerprint(d.getLong(), d.getLong());
    }

    /**
     * The job a {@code unique} submission would repeat.
     *
     * @param f its fingerprint
     * @return the same job, queued, running or ended ok, as the refusal names it; empty when there is none
     */
    Optional<DuplicateJobException> standing(Fingerprint f) {
        if (byContent == null) {
            build();
        }
        String key = byContent.get(f);
        if (key == null) {
            return Optional.empty();
        }
        JobTable.Job r = table.job(key);
        Optional<JobState> said = said(r);
        if (said.isEmpty()) {
            byContent.remove(f);
            return Optional.empty();
        }
        return Optional.of(new DuplicateJobException(r.no(), said.get()));
    }

    /** @return whether the index is built: then every submission taken must be added ({@link #taken}) */
    boolean built() {
        return byContent != null;
    }

    /**
     * Adds a submission just taken, if the index is built; it replaces an entry only when that one no
     * longer stands (a queued copy of the same job keeps answering for it).
     *
     * @param f its fingerprint
     * @param key its key
     */
    void taken(Fingerprint f, String key) {
        if (byContent == null) {
            return;
        }
        if (byContent.size() > 2 * state.get().submissions().size() + 1024) {
            byContent = null; // compaction forgot many: built again from the journal at the next unique one
            return;
        }
        String before = byContent.get(f);
        if (before == null || said(table.job(before)).isEmpty()) {
            byContent.put(f, key);
        }
    }

    /** Where a job stands for a duplicate's answer; empty when it no longer stands for one (ended not ok, forgotten). */
    private static Optional<JobState> said(JobTable.Job r) {
        if (!r.numbered()) {
            return Optional.empty();
        }
        return switch (r.state()) {
            case PENDING -> Optional.of(JobState.PENDING);
            case LAUNCHING, RUNNING -> Optional.of(JobState.RUNNING);
            case OK -> Optional.of(JobState.OK);
            default -> Optional.empty();
        };
    }

    private void build() {
        Map<Fingerprint, String> m = new HashMap<>();
        JournalState s = state.get();
        for (JournalEvent.Submitted sub : s.submissions()) {
            if (said(table.job(sub.key())).isPresent()) {
                Fingerprint f = fingerprint(sub.owner(), sub.cwd(), specOf.apply(sub));
                String before = m.get(f);
                if (before == null || said(table.job(before)).isEmpty()) {
                    m.put(f, sub.key());
                }
            }
        }
        byContent = m;
    }
}
