package io.gpusched.jobs;

import io.gpusched.alloc.GpuShare;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One job: a shell command plus what its leading {@code [k=v ...]} block declared.
 *
 * @param command the shell command, trimmed, exactly as it will be passed to {@code /bin/sh -c}; one
 *     line without NUL, at most {@link JobsFileParser#MAX_LINE_BYTES} bytes of UTF-8
 * @param vramMib declared GPU memory per GPU in MiB; empty means undeclared (the job then runs only
 *     on a fully idle GPU, alone)
 * @param gpus how many distinct GPUs the job needs, at least 1; a line without {@code gpus=} gets
 *     {@link Scheduling#gpusByDefault()}: every GPU it pins, else 1
 * @param timeout wall-clock limit; empty means the job may run forever
 * @param retries CUDA-OOM retries the line asked for, at least 0 (the scheduler uses the larger of
 *     this and its {@code --oom-retries})
 * @param cancel whether the line carries the bare {@code cancel} token
 * @param line 1-based line number in the jobs file (1 for a job parsed on its own)
 * @param key stable identity: 12 hex digits of SHA-1 of the command, {@code #}, and the occurrence
 *     number among identical commands in the file, e.g. {@code e855ec027199#0}
 * @param scheduling priority, pinning, preemption, time slices, name and dependencies
 *     ({@link Scheduling#DEFAULT} for a line without them)
 * @param environment the conda environment and the setup text the command runs with
 *     ({@link RunEnvironment#DEFAULT} for a line without them); like the other attributes, not part of
 *     the job's identity
 * @param share a share of one GPU's memory ({@code gpus=0.5}); when present, {@code gpus} is 1 and
 *     {@code vramMib} is empty: the MiB reserved is that share of the total of the GPU the job gets
 * @param learnVram whether the job's declaration is learned ({@code vram=auto}, or the scheduler's
 *     {@code --auto-vram} for a line that declares none): from the latest peak of the same command, else
 *     of the same requirement rule; else it is {@code vramMib} (a rule's figure, filled in by
 *     {@link Requirements}) or undeclared. Never with a {@code share}
 * @param comment a free note ({@code comment='nightly sweep'}) shown beside the job in the queue and
 *     passed to Slurm; nothing acts on it. One line of 1 to {@link #MAX_COMMENT_CHARS} characters, not
 *     blank, without control characters ({@link #commentProblem(String)}); empty when the line has none
 * @param unique whether the job is left out while the same job ({@link #sameJobLine()}) is queued, running
 *     or has ended ok ({@code [unique]}; a daemon's {@code serve --dedup} sets it on every submission)
 *
 * <p>API callers build one with {@link #builder(String)} (every attribute at its default until set);
 * the canonical constructor takes every component and gains one with each new attribute. Which
 * attributes a line may declare, how each is read and written back, is {@link Attribute}'s table.
 */
public record JobSpec(
        String command,
        OptionalLong vramMib,
        int gpus,
        Optional<Duration> timeout,
        int retries,
        boolean cancel,
        int line,
        String key,
        Scheduling scheduling,
        RunEnvironment environment,
        Optional<GpuShare> share,
        boolean learnVram,
        Optional<String> comment,
        boolean unique) {

    /**
     * The longest {@code comment} in characters: a note for a queue line, not a document (Slurm's own
     * comment field is far larger, so this limit is gpusched's).
     */
    public static final int MAX_COMMENT_CHARS = 200;

    /**
     * Says what is wrong with a comment, for the one-line error of a jobs file or an option.
     *
     * @param text a comment as given (unquoted)
     * @return empty when it is one: not blank, at most {@link #MAX_COMMENT_CHARS} characters, and no
     *     control character (a newline or tab would break the queue's one row per job); else the problem
     */
    public static Optional<String> commentProblem(String text) {
        if (text.isBlank()) {
            return Optional.of("empty comment");
        }
        if (text.length() > MAX_COMMENT_CHARS) {
            return Optional.of("comment of " + text.length() + " characters (at most " + MAX_COMMENT_CHARS + ")");
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            return Optional.of("comment with a control character (a newline or tab)");
        }
        return Optional.empty();
    }

    /**
     * Validates the fields; the parser never builds an invalid spec, so this guards API users.
     *
     * @param command see {@link #command()}
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     * @param timeout see {@link #timeout()}
     * @param retries see {@link #retries()}
     * @param cancel see {@link #cancel()}
     * @param line see {@link #line()}
     * @param key see {@link #key()}
     * @param scheduling see {@link #scheduling()}; {@code REQUEUE} on timeout needs a timeout, and a
     *     job pinned to some GPUs cannot ask for more {@code gpus} than it is pinned to
     * @param environment see {@link #environment()}
     * @param share see {@link #share()}; only with one GPU and no {@code vramMib}
     * @param learnVram see {@link #learnVram()}; not with a {@code share}
     * @param comment see {@link #comment()}; one {@link #commentProblem(String)} accepts
     * @param unique see {@link #unique()}
     */
    public JobSpec {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(share, "share");
        if (share.isPresent() && (gpus != 1 || vramMib.isPresent())) {
            throw new IllegalArgumentException("a GPU share (gpus=" + share.get() + ") is one GPU without vram");
        }
        if (share.isPresent() && learnVram) {
            throw new IllegalArgumentException("a GPU share (gpus=" + share.get() + ") is a declaration: nothing to learn");
        }
        Objects.requireNonNull(scheduling, "scheduling");
        Objects.requireNonNull(environment, "environment");
        if (scheduling.onTimeout() == Scheduling.OnTimeout.REQUEUE && timeout.isEmpty()) {
            throw new IllegalArgumentException("requeue on timeout needs a timeout");
        }
        Objects.requireNonNull(vramMib, "vramMib");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(key, "key");
        if (command.isBlank()) {
            throw new IllegalArgumentException("command must not be blank");
        }
        if (command.indexOf('\0') >= 0 || command.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("command must be one line without NUL bytes");
        }
        if (command.length() > JobsFileParser.MAX_LINE_BYTES / 3
                && JobsLines.utf8Length(command, 0, command.length()) > JobsFileParser.MAX_LINE_BYTES) {
            throw new IllegalArgumentException("command must fit in a jobs-file line of "
                    + JobsFileParser.MAX_LINE_BYTES + " bytes");
        }
        if (vramMib.isPresent() && (vramMib.getAsLong() < 1 || vramMib.getAsLong() > Units.MAX_MIB)) {
            throw new IllegalArgumentException("vramMib must be in [1, " + Units.MAX_MIB + "], got " + vramMib.getAsLong());
        }
        if (gpus < 1 || gpus > JobsFileParser.MAX_GPUS) {
            throw new IllegalArgumentException("gpus must be in [1, " + JobsFileParser.MAX_GPUS + "], got " + gpus);
        }
        if (scheduling.pinned() && gpus > scheduling.gpuIds().size()) {
            throw new IllegalArgumentException("gpus=" + gpus + " but pinned to " + scheduling.gpuIds().size() + " GPUs");
        }
        if (timeout.isPresent() && (timeout.get().isNegative() || timeout.get().isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + Units.formatDuration(timeout.get()));
        }
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0, got " + retries);
        }
        if (line < 1) {
            throw new IllegalArgumentException("line must be >= 1, got " + line);
        }
        Objects.requireNonNull(comment, "comment");
        comment.flatMap(JobSpec::commentProblem).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
    }

    /**
     * @param newKey the key
     * @return this job under another key (as a submission is keyed by its number)
     */
    public JobSpec withKey(String newKey) {
        return toBuilder().key(newKey).build();
    }

    /**
     * @param newEnvironment the conda environment and setup
     * @return this job run with them instead
     */
    public JobSpec withEnvironment(RunEnvironment newEnvironment) {
        return toBuilder().environment(newEnvironment).build();
    }

    /**
     * @param newVramMib the declaration, e.g. a requirement rule's figure
     * @param newGpus how many GPUs
     * @param newTimeout the time limit
     * @param newRetries the OOM retries
     * @return this job with them instead (a share, if any, is kept only while no {@code vram} is given)
     */
    public JobSpec withRequirements(OptionalLong newVramMib, int newGpus, Optional<Duration> newTimeout, int newRetries) {
        Optional<GpuShare> keptShare = newVramMib.isPresent() ? Optional.empty() : share;
        return toBuilder().vramMib(newVramMib).gpus(newGpus).timeout(newTimeout).retries(newRetries).share(keptShare)
                .learnVram(learnVram && keptShare.isEmpty()).build();
    }

    /**
     * @return this job with its declaration learned ({@code vram=auto}); itself when it has a share, which
     *     is a declaration
     */
    public JobSpec learningVram() {
        if (learnVram || share.isPresent()) {
            return this;
        }
        return toBuilder().learnVram(true).build();
    }

    /**
     * What two jobs share when they are the same job for {@link #unique()}: the line {@link #toLine()}
     * writes, without the {@code unique} word itself (a job submitted without it is still the same job as
     * one with it). Every attribute counts, in its one written form, so {@code vram=18G} and
     * {@code vram=18432} are the same; the line number and the key do not.
     *
     * @return the line as written, less {@code unique}
     */
    public String sameJobLine() {
        return unique ? toBuilder().unique(false).build().toLine() : toLine();
    }

    /**
     * Parses one job line typed now, e.g. a submission, on its own (line 1, occurrence 0). One line has
     * no file, so the checks of a whole file are not made: its {@code after} may name any job, and its
     * name is not compared with others. A job that waits for itself ({@code [name=a after=a]}) is still
     * refused. A line this program wrote itself is read back with {@link #parseRecorded(String)}.
     *
     * @param line text such as {@code [vram=8G retries=1] python eval.py}; a final LF or CRLF is its
     *     line end, and ASCII spaces and tabs at the ends are taken off
     * @return the spec
     * @throws JobSpecException if the line is blank, a comment, or malformed, or if it is one a shell
     *     would read otherwise than as one whole job: its command holds a CR or another control
     *     character but TAB, is only a shell comment, or ends with a {@code \} that escapes the line end
     *     (see docs/jobs-file.md)
     */
    public static JobSpec parse(String line) {
        return JobsFileParser.parseLine(line, "<job>", 1, true);
    }

    /**
     * Reads back a line this program wrote itself with {@link #toLine()}, e.g. in its journal: as
     * {@link #parse(String)}, less the rules only new input must meet (those about the command's
     * control characters, comments and final backslash). A job an earlier version accepted, with a
     * command those rules came to refuse, is read back as it was recorded, never refused or changed.
     *
     * @param line a line {@link #toLine()} wrote
     * @return the spec
     * @throws JobSpecException if the line is not one this version can read (e.g. an attribute it does
     *     not know)
     */
    public static JobSpec parseRecorded(String line) {
        return JobsFileParser.parseLine(line, "<job>", 1, false);
    }

    /** @return whether the job declared its VRAM, as fixed MiB ({@code vram=}) or as a share of one GPU */
    public boolean declared() {
        return vramMib.isPresent() || share.isPresent();
    }

    /**
     * The line as it would be written in a jobs file: a block holding every attribute that differs
     * from the default, then the command. Reading it with {@link #parseRecorded(String)} gives back this
     * spec, line number aside, and so does {@link #parse(String)} for a command that new input may hold
     * (a file of such lines is checked as a whole too: see {@link JobsFileParser}).
     * The attributes come in {@link Attribute}'s order, each as {@link Attribute#written(JobSpec)} writes
     * it: {@code vram} (MiB, or {@code auto} when learned, whatever figure a rule filled in), {@code gpus}
     * (a share as a decimal, {@code gpus=0.5}), {@code timeout} (decimal seconds), {@code retries},
     * {@code cancel}, {@code priority}, {@code gpu-ids} (runs of three or more consecutive indices as a
     * range, {@code 0-3}), {@code preemptible}, {@code on-timeout=requeue}, {@code name}, {@code after}
     * (the jobs that must end ok), {@code after-any} (the others), {@code conda}, {@code setup},
     * {@code tty}, {@code comment} and {@code unique}, e.g.
     * {@code [vram=8192 timeout=7200s priority=-3 gpu-ids=0-3,GPU-8f2c on-timeout=requeue name=train after=prep] python train.py}.
     * A value is written bare when it can be read back so, else quoted: in single quotes, or in double
     * quotes with {@code \} and {@code "} escaped when it holds a single quote
     * ({@code [conda=torch setup='. venv/bin/activate'] python train.py}).
     * A command that starts with {@code [} or {@code #} gets an empty block, {@code []}, so it is not
     * read as a block or a comment.
     *
     * @return the line, without a line end
     */
    public String toLine() {
        StringBuilder block = new StringBuilder();
        for (Attribute a : Attribute.ALL) {
            Optional<String> token = a.written(this);
            if (token.isPresent()) {
                block.append(block.length() == 0 ? "" : " ").append(token.get());
            }
        }
        // An empty block keeps a command that itself starts with '[' from being read as a block, and
        // one that starts with '#' from being read as a comment.
        if (block.length() == 0 && !command.startsWith("[") && !command.startsWith("#")) {
            return command;
        }
        return "[" + block + "] " + command;
    }

    /**
     * A builder of a job running {@code command}, every other attribute at its default: one GPU (every GPU
     * it pins, if {@link Builder#scheduling} pins some and {@link Builder#gpus} is not called),
     * undeclared VRAM, no timeout, no retries, not cancelled, line 1, keyed as
     * {@link #parse(String)} keys a line on its own ({@link JobKeys#key(String, int) JobKeys.key(command, 0)}),
     * {@link Scheduling#DEFAULT}, {@link RunEnvironment#DEFAULT}, no share, not learned, no comment, not unique.
     *
     * @param command see {@link #command()}
     * @return the builder
     */
    public static Builder builder(String command) {
        return new Builder().command(command);
    }

    /**
     * A builder for a command given as a program and its arguments, run exactly as given (see
     * {@link Builder#argv(java.util.List)}); otherwise as {@link #builder(String)}.
     *
     * @param argv the program, then its arguments; at least one word
     * @return the builder
     * @throws IllegalArgumentException if {@code argv} is empty or a word holds NUL
     */
    public static Builder builder(java.util.List<String> argv) {
        return new Builder().argv(argv);
    }

    /** @return a builder holding this job's every component, to change some and {@link Builder#build()} another */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.command = command;
        b.vramMib = vramMib;
        b.gpus = gpus;
        b.gpusGiven = true;
        b.timeout = timeout;
        b.retries = retries;
        b.cancel = cancel;
        b.line = line;
        b.key = Optional.of(key);
        b.scheduling = scheduling;
        b.environment = environment;
        b.share = share;
        b.learnVram = learnVram;
        b.comment = comment;
        b.unique = unique;
        return b;
    }

    /**
     * Builds a {@link JobSpec} one component at a time; {@link #build()} checks them together as the
     * canonical constructor does. Reusable: {@code build()} may be called again after more changes. Not
     * thread-safe.
     */
    public static final class Builder {
        // Package-private so the parser can check what a block declared so far, token by token.
        String command = "";
        OptionalLong vramMib = OptionalLong.empty();
        int gpus = 1;
        /** Whether {@link #gpus(int)} was called: if not, the job gets {@link Scheduling#gpusByDefault()}. */
        boolean gpusGiven;
        Optional<Duration> timeout = Optional.empty();
        int retries;
        boolean cancel;
        int line = 1;
        Optional<String> key = Optional.empty();
        Scheduling scheduling = Scheduling.DEFAULT;
        RunEnvironment environment = RunEnvironment.DEFAULT;
        Optional<GpuShare> share = Optional.empty();
        boolean learnVram;
        Optional<String> comment = Optional.empty();
        boolean unique;

        Builder() {
        }

        /**
         * @param value see {@link JobSpec#command()}
         * @return this builder
         */
        public Builder command(String value) {
            command = Objects.requireNonNull(value, "command");
            return this;
        }

        /**
         * The command as a program and its arguments, run exactly as given: written as the shell line
         * that runs them ({@link ShellWords#join}), since a job's command is a shell line. Use
         * {@link #command(String)} for a line the shell should read (pipes, variables, {@code &&}).
         *
         * @param argv the program, then its arguments; at least one word, none holding NUL
         * @return this builder
         * @throws IllegalArgumentException if {@code argv} is empty or a word holds NUL
         */
        public Builder argv(java.util.List<String> argv) {
            command = ShellWords.join(argv);
            return this;
        }

        /**
         * @param value see {@link JobSpec#vramMib()}; empty for undeclared
         * @return this builder
         */
        public Builder vramMib(OptionalLong value) {
            vramMib = Objects.requireNonNull(value, "vramMib");
            return this;
        }

        /**
         * @param value see {@link JobSpec#gpus()}; unset, the job gets every GPU it pins, else 1
         *     ({@link Scheduling#gpusByDefault()}), or 1 with a share
         * @return this builder
         */
        public Builder gpus(int value) {
            gpus = value;
            gpusGiven = true;
            return this;
        }

        /**
         * @param value see {@link JobSpec#timeout()}; empty for none
         * @return this builder
         */
        public Builder timeout(Optional<Duration> value) {
            timeout = Objects.requireNonNull(value, "timeout");
            return this;
        }

        /**
         * @param value see {@link JobSpec#retries()}
         * @return this builder
         */
        public Builder retries(int value) {
            retries = value;
            return this;
        }

        /**
         * @param value see {@link JobSpec#cancel()}
         * @return this builder
         */
        public Builder cancel(boolean value) {
            cancel = value;
            return this;
        }

        /**
         * @param value see {@link JobSpec#line()}
         * @return this builder
         */
        public Builder line(int value) {
            line = value;
            return this;
        }

        /**
         * @param value see {@link JobSpec#key()}; unset, the key is {@code JobKeys.key(command, 0)}
         * @return this builder
         */
        public Builder key(String value) {
            key = Optional.of(Objects.requireNonNull(value, "key"));
            return this;
        }

        /**
         * @param value see {@link JobSpec#scheduling()}
         * @return this builder
         */
        public Builder scheduling(Scheduling value) {
            scheduling = Objects.requireNonNull(value, "scheduling");
            return this;
        }

        /**
         * @param value see {@link JobSpec#environment()}
         * @return this builder
         */
        public Builder environment(RunEnvironment value) {
            environment = Objects.requireNonNull(value, "environment");
            return this;
        }

        /**
         * @param value see {@link JobSpec#share()}; empty for whole GPUs
         * @return this builder
         */
        public Builder share(Optional<GpuShare> value) {
            share = Objects.requireNonNull(value, "share");
            return this;
        }

        /**
         * @param value see {@link JobSpec#learnVram()}
         * @return this builder
         */
        public Builder learnVram(boolean value) {
            learnVram = value;
            return this;
        }

        /**
         * @param value see {@link JobSpec#comment()}; empty for none
         * @return this builder
         */
        public Builder comment(Optional<String> value) {
            comment = Objects.requireNonNull(value, "comment");
            return this;
        }

        /**
         * @param value see {@link JobSpec#unique()}
         * @return this builder
         */
        public Builder unique(boolean value) {
            unique = value;
            return this;
        }

        /**
         * @return the job
         * @throws IllegalArgumentException if the components do not make a job, as the canonical
         *     constructor says
         */
        public JobSpec build() {
            int count = gpusGiven || share.isPresent() ? gpus : scheduling.gpusByDefault();
            return new JobSpec(command, vramMib, count, timeout, retries, cancel, line,
                    key.isPresent() ? key.get() : JobKeys.key(command, 0), scheduling, environment, share, learnVram,
                    comment, unique);
        }
    }
}
