package io.gpusched.journal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One line of {@code journal.jsonl}. The field names and event names are those of the original tool,
 * so journals are interchangeable: {@code {"key": "...", "event": "seen", "no": 7, "command": "..."}}.
 *
 * <p>Why one long file: the journal's event set is sealed and is the on-disk format; one place lists every
 * event with what it means to the fold and to the original tool.
 */
public sealed interface JournalEvent {
    /** @return the job's identity key */
    String key();

    /**
     * First sight of a job: assigns its persistent display number.
     *
     * @param key identity key
     * @param no display number
     * @param command shell command
     */
    record Seen(String key, int no, String command) implements JournalEvent {
        /**
         * Checks for nulls.
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         */
        public Seen {
            Objects.requireNonNull(key);
            Objects.requireNonNull(command);
        }
    }

    /**
     * A job submitted through the API (not a jobs-file line): its display number and everything needed
     * to queue it again after a crash, written and forced before the submission is acknowledged. Its
     * key ({@code s<no>}) can never collide with a file line's ({@code <12 hex>#<n>}). The original tool
     * never writes this event and skips it when reading.
     *
     * @param key identity key, {@code s} and the display number
     * @param no display number
     * @param command shell command
     * @param vramMib declared MiB per GPU, if declared
     * @param gpus GPUs it needs
     * @param timeoutNanos its time limit, if any
     * @param retries CUDA-OOM retries it asked for
     * @param source where it came from ({@code api})
     * @param owner the user that submitted it
     * @param cwd the directory the command starts in (the submitter's working directory)
     * @param submittedAtMillis when, in milliseconds since the epoch
     * @param env the whole environment the command gets, when the submitter captured one; empty means
     *     the scheduler's own
     * @param line the job as a jobs-file line ({@code JobSpec.toLine()}), which also carries what the
     *     other fields do not (priority, pinning, dependencies, ...); absent in lines of older versions
     * @param output the absolute path its output goes to ({@code gpusched submit --output}); absent: the
     *     default ({@code <cwd>/gpusched-<no>.log} for a job a root scheduler runs as its owner, else the
     *     log directory's {@code job<NNN>_gpu<i>.log}). Older versions ignore it
     * @param requestId the client's name for this submission ({@code request_id}): a repeat from the same
     *     owner is answered with this job's number instead of queueing another; older versions ignore it
     * @param umask the file-mode creation mask its command runs with (0 to 0777), as its client sent it
     *     ({@code umask}); empty for one written before it was recorded, or sent without it
     */
    record Submitted(String key, int no, String command, OptionalLong vramMib, int gpus, OptionalLong timeoutNanos,
                     int retries, String source, String owner, String cwd, long submittedAtMillis,
                     Optional<Map<String, String>> env, Optional<String> line, Optional<String> output,
                     Optional<String> requestId, java.util.OptionalInt umask) implements JournalEvent {
        /**
         * Checks for nulls and copies the environment (sorted by name, so its line is reproducible).
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param vramMib see {@link #vramMib()}
         * @param gpus see {@link #gpus()}
         * @param timeoutNanos see {@link #timeoutNanos()}
         * @param retries see {@link #retries()}
         * @param source see {@link #source()}
         * @param owner see {@link #owner()}
         * @param cwd see {@link #cwd()}
         * @param submittedAtMillis see {@link #submittedAtMillis()}
         * @param env see {@link #env()}
         * @param line see {@link #line()}
         * @param output see {@link #output()}
         * @param requestId see {@link #requestId()}
         * @param umask see {@link #umask()}
         */
        public Submitted {
            Objects.requireNonNull(umask);
            if (umask.isPresent() && (umask.getAsInt() < 0 || umask.getAsInt() > 0777)) {
                throw new IllegalArgumentException("umask must be 0 to 0777, got " + umask.getAsInt());
            }
            Objects.requireNonNull(key);
            Objects.requireNonNull(command);
            Objects.requireNonNull(vramMib);
            Objects.requireNonNull(timeoutNanos);
            Objects.requireNonNull(source);
            Objects.requireNonNull(owner);
            Objects.requireNonNull(cwd);
            Objects.requireNonNull(line);
            Objects.requireNonNull(output);
            Objects.requireNonNull(requestId);
            // One copy of what consecutive submissions repeat (Shared): a queue of 100,000 held as many.
            env = Shared.env(env);
            owner = Shared.string(owner);
            cwd = Shared.string(cwd);
        }

        /**
         * A submission with the default output and no request id, as versions before those wrote them.
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param vramMib see {@link #vramMib()}
         * @param gpus see {@link #gpus()}
         * @param timeoutNanos see {@link #timeoutNanos()}
         * @param retries see {@link #retries()}
         * @param source see {@link #source()}
         * @param owner see {@link #owner()}
         * @param cwd see {@link #cwd()}
         * @param submittedAtMillis see {@link #submittedAtMillis()}
         * @param env see {@link #env()}
         * @param line see {@link #line()}
         */
        public Submitted(String key, int no, String command, OptionalLong vramMib, int gpus, OptionalLong timeoutNanos,
                         int retries, String source, String owner, String cwd, long submittedAtMillis,
                         Optional<Map<String, String>> env, Optional<String> line) {
            this(key, no, command, vramMib, gpus, timeoutNanos, retries, source, owner, cwd, submittedAtMillis, env, line,
                    Optional.empty(), Optional.empty());
        }

        /**
         * A submission without a recorded umask, as versions before it wrote them.
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param command see {@link #command()}
         * @param vramMib see {@link #vramMib()}
         * @param gpus see {@link #gpus()}
         * @param timeoutNanos see {@link #timeoutNanos()}
         * @param retries see {@link #retries()}
         * @param source see {@link #source()}
         * @param owner see {@link #owner()}
         * @param cwd see {@link #cwd()}
         * @param submittedAtMillis see {@link #submittedAtMillis()}
         * @param env see {@link #env()}
         * @param line see {@link #line()}
         * @param output see {@link #output()}
         * @param requestId see {@link #requestId()}
         */
        public Submitted(String key, int no, String command, OptionalLong vramMib, int gpus, OptionalLong timeoutNanos,
                         int retries, String source, String owner, String cwd, long submittedAtMillis,
                         Optional<Map<String, String>> env, Optional<String> line, Optional<String> output,
                         Optional<String> requestId) {
            this(key, no, command, vramMib, gpus, timeoutNanos, retries, source, owner, cwd, submittedAtMillis, env, line,
                    output, requestId, java.util.OptionalInt.empty());
        }
    }

    /**
     * Intent, written just before a job is spawned: run {@code run} of this job is about to start on
     * {@code gpus}. A restarted scheduler that finds it without a later {@code started} looks for the
     * run's pid and exit-status files (and for live processes carrying the run's token) to learn
     * whether the spawn happened, instead of guessing. The original tool never writes it; whether
     * the original can read a journal that has it is not known.
     *
     * @param key identity key
     * @param run run number, unique within this journal
     * @param gpus the GPUs it will get
     */
    record Launching(String key, long run, List<Integer> gpus) implements JournalEvent {
        /**
         * Copies the list.
         *
         * @param key see {@link #key()}
         * @param run see {@link #run()}
         * @param gpus see {@link #gpus()}
         */
        public Launching {
            Objects.requireNonNull(key);
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * A job was launched.
     *
     * @param key identity key
     * @param pgid its process group (and session) id
     * @param gpus its GPUs
     * @param vramMib the run's declaration in MiB per GPU ({@code vram}), as the scheduler held it for this
     *     run (an OOM retry's is the bumped one); empty when undeclared, and in lines of the original tool and
     *     of versions before it was written, which {@code gpusched stats} then infers from the submission
     * @param rule the requirement rule the job matched ({@code rule}), so a later job of the same rule can
     *     learn from its peak; empty when none did, and in older lines
     * @param devices the UUIDs of {@code gpus}, in their order ({@code devices}), as the backend named them
     *     when the run started: where the run is when the GPUs are renumbered before a restarted scheduler
     *     takes it up (MIG instances made or destroyed on an earlier GPU, a GPU gone). Empty when the
     *     backend did not name each of them (simulated GPUs), and in older lines
     * @param tickerNanos the scheduler's ticker when it launched the run ({@code ticker_ns}): on Linux,
     *     {@code System.nanoTime} is {@code CLOCK_MONOTONIC}, one clock for every process of a boot, which stops
     *     while the machine is suspended. A scheduler that takes the run up after a restart counts its time
     *     limit from it, so that time suspended counts no more than for a run it started itself. Empty in
     *     older lines and for what compaction or a replay writes without it; readers that do not know it
     *     ignore it
     */
    record Started(String key, long pgid, List<Integer> gpus, OptionalLong vramMib, Optional<String> rule,
                   List<String> devices, OptionalLong tickerNanos) implements JournalEvent {
        /**
         * A session id above Linux's pid_max (2^22), for a {@code started} line that names a run's GPUs
         * but no live session: compaction's last attempt, a replay's run. It matches no process.
         */
        public static final long NO_SESSION = RunHandle.NO_SESSION;

        /**
         * Copies the list.
         *
         * @param key see {@link #key()}
         * @param pgid see {@link #pgid()}
         * @param gpus see {@link #gpus()}
         * @param vramMib see {@link #vramMib()}
         * @param rule see {@link #rule()}
         * @param devices see {@link #devices()}; none, or one per GPU
         * @param tickerNanos see {@link #tickerNanos()}
         * @throws IllegalArgumentException for devices that are neither none nor one per GPU
         */
        public Started {
            Objects.requireNonNull(tickerNanos);
            Objects.requireNonNull(key);
            Objects.requireNonNull(vramMib);
            Objects.requireNonNull(rule);
            gpus = List.copyOf(gpus);
            devices = List.copyOf(devices);
            if (!devices.isEmpty() && devices.size() != gpus.size()) {
                throw new IllegalArgumentException("a started line names one device per GPU or none, not "
                        + devices.size() + " for " + gpus.size());
            }
        }

        /**
         * A launch whose ticker is not journaled.
         *
         * @param key see {@link #key()}
         * @param pgid see {@link #pgid()}
         * @param gpus see {@link #gpus()}
         * @param vramMib see {@link #vramMib()}
         * @param rule see {@link #rule()}
         * @param devices see {@link #devices()}
         */
        public Started(String key, long pgid, List<Integer> gpus, OptionalLong vramMib, Optional<String> rule,
                       List<String> devices) {
            this(key, pgid, gpus, vramMib, rule, devices, OptionalLong.empty());
        }

        /**
         * A launch whose devices are not named.
         *
         * @param key see {@link #key()}
         * @param pgid see {@link #pgid()}
         * @param gpus see {@link #gpus()}
         * @param vramMib see {@link #vramMib()}
         * @param rule see {@link #rule()}
         */
        public Started(String key, long pgid, List<Integer> gpus, OptionalLong vramMib, Optional<String> rule) {
            this(key, pgid, gpus, vramMib, rule, List.of());
        }

        /**
         * A launch that matched no requirement rule.
         *
         * @param key see {@link #key()}
         * @param pgid see {@link #pgid()}
         * @param gpus see {@link #gpus()}
         * @param vramMib see {@link #vramMib()}
         */
        public Started(String key, long pgid, List<Integer> gpus, OptionalLong vramMib) {
            this(key, pgid, gpus, vramMib, Optional.empty());
        }

        /**
         * A launch without a declaration on its line, as the original tool and older versions wrote it.
         *
         * @param key see {@link #key()}
         * @param pgid see {@link #pgid()}
         * @param gpus see {@link #gpus()}
         */
        public Started(String key, long pgid, List<Integer> gpus) {
            this(key, pgid, gpus, OptionalLong.empty());
        }
    }

    /**
     * A started job ended without an outcome (its scheduler died or was stopped); it is pending again.
     *
     * @param key identity key
     */
    record Interrupted(String key) implements JournalEvent {
        /**
         * Checks for nulls.
         *
         * @param key see {@link #key()}
         */
        public Interrupted {
            Objects.requireNonNull(key);
        }
    }

    /**
     * A running job was stopped on purpose and goes back to the queue, its attempt count unchanged: it
     * was preempted for a higher-priority job, or its time slice ended ({@code on-timeout=requeue}). Not
     * an outcome. The original tool never writes it; a reader that skips it sees a started job whose
     * session is gone, which it requeues too.
     *
     * @param key identity key
     * @param reason {@link #PREEMPTED}, {@link #TIME_SLICE} or {@link #MAX_JOB_TIME}
     */
    record Requeued(String key, String reason) implements JournalEvent {
        /** The reason of a preempted job. */
        public static final String PREEMPTED = "preempted";
        /** The reason of a job whose time slice ended. */
        public static final String TIME_SLICE = "time_slice";
        /**
         * The reason of a job that ran past the scheduler's {@code --max-job-time} with
         * {@code --on-max-job-time requeue} (mgpu's context switch): a time slice the daemon sets.
         */
        public static final String MAX_JOB_TIME = "max_job_time";

        /**
         * Checks the reason.
         *
         * @param key see {@link #key()}
         * @param reason see {@link #reason()}
         */
        public Requeued {
            Objects.requireNonNull(key);
            if (!PREEMPTED.equals(reason) && !TIME_SLICE.equals(reason) && !MAX_JOB_TIME.equals(reason)) {
                throw new IllegalArgumentException("\"reason\" of a requeued event must be preempted, time_slice or"
                        + " max_job_time");
            }
        }
    }

    /**
     * A job that had ended is to run again ({@code --retry-failed}): it is pending, with a fresh
     * attempt count and the declaration an OOM bumped it to, if any. The original tool never writes
     * this event; a reader that skips unknown events (as this one does for events newer than itself)
     * keeps seeing the job's earlier outcome.
     *
     * @param key identity key
     */
    record Retry(String key) implements JournalEvent {
        /**
         * Checks for nulls.
         *
         * @param key see {@link #key()}
         */
        public Retry {
            Objects.requireNonNull(key);
        }
    }

    /**
     * A GPU was paused (no new job goes there; running ones continue) or resumed. Not a job's event:
     * its key is {@code gpu<index>}, which no job key can be, and it folds into
     * {@link JournalState#pauses()}. The original tool never writes it.
     *
     * <p>A pause names the device by UUID where the backend gave one ({@code device}): it then follows
     * that device when the GPUs are renumbered (MIG instances made or destroyed, a GPU off the bus), and
     * {@code gpu} is only the index it was last listed at. A line without {@code device} (written before
     * pauses named devices, or by a backend without UUIDs) pauses whatever device has that index.
     *
     * @param key {@code gpu} and the index
     * @param gpu the GPU index: where the device was listed when this was written
     * @param device the device's UUID, when known
     * @param paused true to pause, false to resume
     */
    record GpuPaused(String key, int gpu, Optional<String> device, boolean paused) implements JournalEvent {
        /**
         * Checks the key names the GPU.
         *
         * @param key see {@link #key()}
         * @param gpu see {@link #gpu()}
         * @param device see {@link #device()}
         * @param paused see {@link #paused()}
         */
        public GpuPaused {
            if (!key.equals(keyOf(gpu))) {
                throw new IllegalArgumentException("a GPU pause's key is gpu<index>, got " + key + " for gpu " + gpu);
            }
            Objects.requireNonNull(device, "device");
        }

        /**
         * A pause of an index, naming no device.
         *
         * @param key see {@link #key()}
         * @param gpu see {@link #gpu()}
         * @param paused see {@link #paused()}
         */
        public GpuPaused(String key, int gpu, boolean paused) {
            this(key, gpu, Optional.empty(), paused);
        }

        /**
         * @param gpu a GPU index
         * @return the key of its pause lines, {@code gpu<index>}
         */
        public static String keyOf(int gpu) {
            return "gpu" + gpu;
        }
    }

    /**
     * The first line of a compacted journal: the numbers the rest of it may no longer imply, since
     * compaction drops the records of submissions that ended long ago. The original tool never writes
     * it and skips it.
     *
     * @param key always {@link #KEY}
     * @param nextNo the display number the next new job gets
     * @param nextRun the run number the next launch gets
     */
    record Compacted(String key, int nextNo, long nextRun) implements JournalEvent {
        /** The key of the event: no job key can be it. */
        public static final String KEY = "journal";

        /**
         * Checks the key.
         *
         * @param key see {@link #key()}
         * @param nextNo see {@link #nextNo()}
         * @param nextRun see {@link #nextRun()}
         */
        public Compacted {
            if (!KEY.equals(key)) {
                throw new IllegalArgumentException("a compaction marker's key is " + KEY + ", got " + key);
            }
        }
    }

    /**
     * What a compaction keeps of the peaks that {@code vram=auto} learns from ({@link PeakHistory}), since it
     * drops the records of submissions that ended long ago. Not a job's event: its key names what was
     * learned, {@code cmd:} and a command's hash ({@link io.gpusched.jobs.JobKeys#hash}) or {@code rule:}
     * and a requirement rule's name, which no job key can be; each followed by its owner ({@code @} and the
     * user after a hash, a NUL and the user after a rule's name) unless that is the daemon's own user
     * ({@link PeakHistory}). The original tool never writes it.
     *
     * @param key {@code cmd:<hash>} or {@code rule:<name>}
     * @param no the display number of the job whose peak it is
     * @param peakMib that job's peak, the largest over its GPUs, in MiB (at least 1)
     */
    record Learned(String key, int no, long peakMib) implements JournalEvent {
        /** The key prefix of a command's peak. */
        public static final String COMMAND = "cmd:";
        /** The key prefix of a rule's peak. */
        public static final String RULE = "rule:";

        /**
         * Checks the key's form and the peak.
         *
         * @param key see {@link #key()}
         * @param no see {@link #no()}
         * @param peakMib see {@link #peakMib()}
         */
        public Learned {
            if (!isKey(key)) {
                throw new IllegalArgumentException("a learned peak's key is cmd:<hash> or rule:<name>, got " + key);
            }
            if (no < 1 || peakMib < 1) {
                throw new IllegalArgumentException("a learned peak needs a job number and a peak of at least 1 MiB");
            }
        }

        /**
         * @param key a journal line's key
         * @return whether it names a learned peak
         */
        public static boolean isKey(String key) {
            return key.startsWith(COMMAND) && key.length() > COMMAND.length()
                    || key.startsWith(RULE) && key.length() > RULE.length();
        }
    }

    /**
     * An attempt of a job was handed to Slurm ({@code gpusched --executor slurm}) as Slurm job {@code slurmJob}:
     * a restarted submitter finds the attempt again by that id instead of submitting it twice. Not an outcome:
     * the job's record is unchanged ({@link JobRecord#apply} keeps it), and {@link JournalState#slurmJob} names
     * the id until the attempt's outcome ({@code oom}, {@code done}) or an {@code interrupted}, {@code requeued}
     * or {@code retry} line. The original tool and the local executor never write it; older versions skip it.
     *
     * @param key identity key
     * @param slurmJob the Slurm job id {@code sbatch --parsable} printed, at least 1
     * @param gres what was asked of Slurm for the attempt's GPUs, e.g. {@code shard:2} or {@code gpu:1}
     */
    record SlurmSubmitted(String key, long slurmJob, String gres) implements JournalEvent {
        /**
         * Checks the id.
         *
         * @param key see {@link #key()}
         * @param slurmJob see {@link #slurmJob()}
         * @param gres see {@link #gres()}
         */
        public SlurmSubmitted {
            Objects.requireNonNull(key);
            Objects.requireNonNull(gres);
            if (slurmJob < 1) {
                throw new IllegalArgumentException("a Slurm job id is at least 1, got " + slurmJob);
            }
        }
    }

    /**
     * A running attempt is being stopped on purpose: SIGTERM was sent (after this line is written) and
     * SIGKILL follows the grace. Written so that the stop outlives the scheduler that asked it: a
     * scheduler that dies during the grace leaves a cancelled job that would otherwise be taken up, or
     * settled from its exit status, as an ordinary run (exit 143: failed), and one that ignores SIGTERM
     * running on. The next scheduler goes on with the stop ({@link JournalState#stopping}): SIGKILL when
     * the grace that began at {@code tickerNanos} is over, and the outcome the reason gives. Not an
     * outcome: the record is unchanged, and an outcome, {@code interrupted}, {@code requeued},
     * {@code retry} or a new {@code launching} line ends it. The scheduler's own stop is never written
     * (an attempt it interrupts runs again). The original tool and older versions skip it, and see the
     * attempt as they did before.
     *
     * @param key identity key
     * @param reason {@link #CANCELLED}, {@link #TIMEOUT}, {@link #PREEMPTED} or {@link #TIME_SLICE}
     * @param maxJobTime whether the limit reached is the scheduler's {@code --max-job-time}, not the job's
     *     own {@code timeout=} (a {@code timeout} or {@code time_slice} stop only)
     * @param tickerNanos the scheduler's monotonic ticker when SIGTERM was sent ({@code System.nanoTime},
     *     one clock for every process of a boot); empty when not known
     */
    record Stopping(String key, String reason, boolean maxJobTime, OptionalLong tickerNanos) implements JournalEvent {
        /** {@code gpusched cancel}, or a {@code cancel} word on its jobs-file line. */
        public static final String CANCELLED = "cancelled";
        /** It ran past its time limit and ends {@code timeout}. */
        public static final String TIMEOUT = "timeout";
        /** A higher-priority job needs its GPUs: it goes back to the queue. */
        public static final String PREEMPTED = "preempted";
        /** Its time slice ended ({@code on-timeout=requeue}): it goes to the back of the queue. */
        public static final String TIME_SLICE = "time_slice";
        /** Every reason, as written. */
        public static final java.util.Set<String> REASONS = java.util.Set.of(CANCELLED, TIMEOUT, PREEMPTED, TIME_SLICE);

        /**
         * Checks the reason.
         *
         * @param key see {@link #key()}
         * @param reason see {@link #reason()}
         * @param maxJobTime see {@link #maxJobTime()}
         * @param tickerNanos see {@link #tickerNanos()}
         */
        public Stopping {
            Objects.requireNonNull(key);
            Objects.requireNonNull(tickerNanos);
            if (!REASONS.contains(reason)) {
                throw new IllegalArgumentException("\"reason\" of a stopping event must be cancelled, timeout, preempted"
                        + " or time_slice");
            }
        }
    }

    /**
     * A job hit CUDA OOM and will be retried.
     *
     * @param key identity key
     * @param attempts attempts made so far
     * @param nextVramMib declaration for the next attempt, in MiB
     */
    record Oom(String key, int attempts, OptionalLong nextVramMib) implements JournalEvent {
        /**
         * Checks for nulls.
         *
         * @param key see {@link #key()}
         * @param attempts see {@link #attempts()}
         * @param nextVramMib see {@link #nextVramMib()}
         */
        public Oom {
            Objects.requireNonNull(key);
            Objects.requireNonNull(nextVramMib);
        }
    }

    /**
     * A job reached a terminal state.
     *
     * @param key identity key
     * @param status {@code ok}, {@code failed}, {@code timeout}, {@code infeasible}, {@code failed_oom} or
     *     {@code cancelled}
     * @param returncode exit code
     * @param peakMib per-GPU peak MiB by GPU index
     * @param avgUtil average utilisation percent, when known
     * @param vramTimeline a short summary of its memory over time (at most a few dozen points, the highest
     *     kept), shown only; empty when it was never sampled, and in journals of older versions, which
     *     neither write nor read it (the field {@code vram_timeline} is optional)
     */
    record Done(String key, String status, int returncode, Map<Integer, Long> peakMib, OptionalDouble avgUtil,
                java.util.List<VramPoint> vramTimeline) implements JournalEvent {
        /**
         * Copies the map and list.
         *
         * @param key see {@link #key()}
         * @param status see {@link #status()}
         * @param returncode see {@link #returncode()}
         * @param peakMib see {@link #peakMib()}
         * @param avgUtil see {@link #avgUtil()}
         * @param vramTimeline see {@link #vramTimeline()}
         */
        public Done {
            Objects.requireNonNull(key);
            Objects.requireNonNull(status);
            Objects.requireNonNull(avgUtil);
            peakMib = java.util.Collections.unmodifiableMap(new TreeMap<>(peakMib));
            vramTimeline = java.util.List.copyOf(vramTimeline);
        }

        /**
         * Without a timeline.
         *
         * @param key see {@link #key()}
         * @param status see {@link #status()}
         * @param returncode see {@link #returncode()}
         * @param peakMib see {@link #peakMib()}
         * @param avgUtil see {@link #avgUtil()}
         */
        public Done(String key, String status, int returncode, Map<Integer, Long> peakMib, OptionalDouble avgUtil) {
            this(key, status, returncode, peakMib, avgUtil, java.util.List.of());
        }
    }

    /**
     * One point of a {@link Done}'s memory timeline.
     *
     * @param ms milliseconds since the job's first attempt started, at least 0
     * @param mib its largest per-GPU use then (the highest of the samples the point stands for), in MiB
     */
    record VramPoint(long ms, long mib) {
        /**
         * @param points pairs of {@code {ms, MiB}}
         * @return them as points
         */
        public static java.util.List<VramPoint> of(java.util.List<long[]> points) {
            if (points.isEmpty()) {
                return java.util.List.of(); // most ends keep no timeline (a simulation's none): no stream for nothing
            }
            return points.stream().map(p -> new VramPoint(p[0], p[1])).toList();
        }
    }
}
