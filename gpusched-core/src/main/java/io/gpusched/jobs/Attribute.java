package io.gpusched.jobs;

import io.gpusched.alloc.GpuShare;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The attributes a job line's {@code [k=v ...]} block may hold: one row each, in the order
 * {@link JobSpec#toLine()} writes them. A row says the key, whether it is a bare word ({@code cancel})
 * or takes a value ({@code vram=18G}), how the value is read into a job and written back, the
 * {@code submit}/{@code srun} option that sets it with its one-line help, whether {@code srun} takes it,
 * and whether a requirement rule fills it in.
 *
 * <p>Everything that lists attributes iterates this table: the jobs-file grammar (its keys, bare
 * words, comma hint and did-you-mean), {@link JobSpec#toLine()}, the CLI's options, the Slurm mapping
 * (which maps or refuses each row) and the test generators (which draw each row). A new attribute is
 * a new row here, its value where a {@link JobSpec} keeps it, and the code that acts on it.
 *
 * <p>Why one long file: the rows are the point; each is a few lines of reading and writing that lean
 * on the value syntax kept apart ({@code SchedulingSyntax}, {@code EnvironmentSyntax}, {@link Units}).
 */
public enum Attribute {
    /** {@code vram=18G}: GPU memory per GPU ({@link JobSpec#vramMib()}), or {@code auto} ({@link JobSpec#learnVram()}). */
    VRAM("vram", false, Flag.valued("vram", "18G",
            "GPU memory per GPU: 18000 (MiB), 18G, 1.5GiB; auto learns it from earlier runs"), false, true) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.vramToken = at.token();
            if (value.equalsIgnoreCase("auto")) {
                p.spec.learnVram(true);
            } else {
                p.spec.vramMib(OptionalLong.of(Units.parseMib(value).orElseThrow(() -> at.error("bad vram",
                        "give positive MiB like 18000, a size like 18G, 1.5GiB, 512MiB (at most " + Units.MAX_MIB
                                + " MiB), or auto to learn it from earlier runs"))));
            }
        }

        @Override
        public Optional<String> written(JobSpec s) {
            if (s.learnVram()) {
                return Optional.of("vram=auto");
            }
            return s.vramMib().isPresent() ? Optional.of("vram=" + s.vramMib().getAsLong()) : Optional.empty();
        }
    },
    /** {@code gpus=2}: how many GPUs ({@link JobSpec#gpus()}), or {@code gpus=0.5}: a share of one ({@link JobSpec#share()}). */
    GPUS("gpus", false, Flag.valued("gpus", "N|0.5", "how many GPUs, or a share of one GPU's memory (0.5)"), false, true) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.gpusToken = at.token();
            if (GpuShare.looksDecimal(value)) {
                // A decimal is a share of one GPU or a mistake: 1.5 GPUs cannot be placed.
                p.spec.share(Optional.of(GpuShare.parse(value).orElseThrow(() -> JobSpecException.withNote(at.source(),
                        at.line(), at.token(), "bad gpus", "(a fraction is a share of one GPU: above 0, below 1, at most "
                                + GpuShare.MAX_DIGITS + " decimals)", GPUS_FIX))));
            } else if (GPU_LIST.matcher(value).matches()) {
                // gpus=0,1 as a list of GPUs (Slurm's and other schedulers' habit) is gpu-ids here: said so,
                // since "a whole number" alone leaves the user to find the key that pins GPUs.
                throw at.error("bad gpus", "to run on GPUs " + value + " write gpu-ids=" + value + " (gpus counts GPUs: "
                        + GPUS_FIX.substring("give ".length()) + ")");
            } else {
                p.spec.gpus(JobsFileParser.parseInt(value, 1, JobsFileParser.MAX_GPUS).orElseThrow(() ->
                        at.error("bad gpus", GPUS_FIX)));
            }
        }

        @Override
        public Optional<String> written(JobSpec s) {
            if (s.share().isPresent()) {
                return Optional.of("gpus=" + s.share().get());
            }
            // What a line without gpus= gets is not written: 1, or every GPU it pins.
            return s.gpus() != s.scheduling().gpusByDefault() ? Optional.of("gpus=" + s.gpus()) : Optional.empty();
        }
    },
    /** {@code timeout=2h}: the wall-clock limit ({@link JobSpec#timeout()}), written back in decimal seconds. */
    TIMEOUT("timeout", false, Flag.valued("timeout", "2h", "wall-clock limit: 90 (seconds), 15m, 2h, 1.5d"), false, true) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.spec.timeout(Optional.of(Units.parseDuration(value).orElseThrow(() -> at.error("bad timeout",
                    "give a positive duration like 90, 90s, 15m, 2h, 1.5d (at most 3650d)"))));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.timeout().map(t -> "timeout=" + Units.formatDuration(t));
        }
    },
    /** {@code retries=2}: CUDA-OOM retries ({@link JobSpec#retries()}); each run is launched anew, so not for srun. */
    RETRIES("retries", false, Flag.valued("retries", "N", "CUDA out-of-memory retries, each with more memory"), true, true) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.spec.retries(JobsFileParser.parseInt(value, 0, JobsFileParser.MAX_RETRIES).orElseThrow(() ->
                    at.error("bad retries", "give a whole number from 0 to " + JobsFileParser.MAX_RETRIES)));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.retries() != 0 ? Optional.of("retries=" + s.retries()) : Optional.empty();
        }
    },
    /** {@code cancel}: the line's job is cancelled ({@link JobSpec#cancel()}); a jobs-file edit, so no option. */
    CANCEL("cancel", true, Optional.empty(), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.spec.cancel(true);
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.cancel() ? Optional.of("cancel") : Optional.empty();
        }
    },
    /** {@code priority=-3}: {@link Scheduling#priority()}. */
    PRIORITY("priority", false, Flag.valued("priority", "N", "higher runs first; 0 by default, negative allowed"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.priority = SchedulingSyntax.priority(value, at.token(), at.source(), at.line());
        }

        @Override
        public Optional<String> written(JobSpec s) {
            int priority = s.scheduling().priority();
            return priority != 0 ? Optional.of("priority=" + priority) : Optional.empty();
        }
    },
    /** {@code gpu-ids=0-3,GPU-8f2c}: {@link Scheduling#gpuIds()}. */
    GPU_IDS("gpu-ids", false, Flag.valued("gpu-ids", "0,1",
            "these GPUs, all of them unless --gpus says how many: indices, ranges (2-3), UUIDs (GPU-...)"),
            false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.gpuIds = SchedulingSyntax.gpuIds(value, at.token(), at.source(), at.line());
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.scheduling().pinned() ? Optional.of("gpu-ids=" + SchedulingSyntax.gpuList(s.scheduling().gpuIds()))
                    : Optional.empty();
        }
    },
    /** {@code preemptible}: {@link Scheduling#preemptible()}. */
    PREEMPTIBLE("preemptible", true, Flag.bare("preemptible",
            "a higher-priority job that has waited long may stop this one, which is queued again"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.preemptible = true;
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.scheduling().preemptible() ? Optional.of("preemptible") : Optional.empty();
        }
    },
    /** {@code on-timeout=requeue}: {@link Scheduling#onTimeout()}. */
    ON_TIMEOUT("on-timeout", false, Flag.valued("on-timeout", "requeue|fail",
            "what reaching --timeout does: fail (the default), or requeue it at the end"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.onTimeout = SchedulingSyntax.onTimeout(value, at.token(), at.source(), at.line());
            p.onTimeoutToken = at.token();
        }

        @Override
        public Optional<String> written(JobSpec s) {
            Scheduling.OnTimeout o = s.scheduling().onTimeout();
            return o != Scheduling.OnTimeout.FAIL ? Optional.of("on-timeout=" + o.name().toLowerCase(Locale.ROOT))
                    : Optional.empty();
        }
    },
    /** {@code name=train}: {@link Scheduling#name()}, which other lines' {@code after} name. */
    NAME("name", false, Flag.valued("name", "X", "a name other jobs' --after refers to"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.name = Optional.of(SchedulingSyntax.name(value, at.token(), at.source(), at.line()));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.scheduling().name().map(n -> "name=" + n);
        }
    },
    /** {@code after=prep,train}: {@link Scheduling#after()} that must end ok. */
    AFTER("after", false, Flag.valued("after", "X", "start once these jobs (comma-separated) have ended ok"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            SchedulingSyntax.after(key(), value, at.token(), at.source(), at.line(), p.after);
        }

        @Override
        public Optional<String> written(JobSpec s) {
            // The record keeps those that need success first, so two keys write any list back in order.
            return dependencies(s, true);
        }
    },
    /** {@code after-ok=prep}: another spelling of {@link #AFTER}, read as it and written as it. */
    AFTER_OK("after-ok", false, Flag.valued("after-ok", "X", "the same as --after"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            SchedulingSyntax.after(key(), value, at.token(), at.source(), at.line(), p.after);
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return Optional.empty();
        }

        @Override
        public Optional<Attribute> sameAs() {
            return Optional.of(AFTER);
        }
    },
    /** {@code after-any=prep}: {@link Scheduling#after()} that may end either way. */
    AFTER_ANY("after-any", false, Flag.valued("after-any", "X", "start once these jobs have ended, however they ended"),
            false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            SchedulingSyntax.after(key(), value, at.token(), at.source(), at.line(), p.after);
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return dependencies(s, false);
        }
    },
    /** {@code conda=torch}: {@link RunEnvironment#conda()}; the daemon's launch applies it, so not for srun. */
    CONDA("conda", false, Flag.valued("conda", "ENV", "run the command through conda run in this environment"), true, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.conda = Optional.of(EnvironmentSyntax.conda(value, at.token(), at.source(), at.line()));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.environment().conda().map(c -> "conda=" + AttributeBlock.quote(c));
        }
    },
    /** {@code setup='. venv/bin/activate'}: {@link RunEnvironment#setup()}; the daemon's launch runs it, so not for srun. */
    SETUP("setup", false, Flag.valued("setup", "TEXT", "shell text run first, in the command's own shell"), true, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.setup = Optional.of(EnvironmentSyntax.setup(value, at.token(), at.source(), at.line()));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.environment().setup().map(v -> "setup=" + AttributeBlock.quote(v));
        }
    },
    /** {@code tty}: {@link RunEnvironment#tty()}; an srun command has the caller's terminal already. */
    TTY("tty", true, Flag.bare("tty", "run it in a tmux session of its own (gpusched attach N)"), true, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.tty = true;
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.environment().tty() ? Optional.of("tty") : Optional.empty();
        }
    },
    /**
     * {@code comment='nightly sweep'}: {@link JobSpec#comment()}, a free note the queue shows and Slurm
     * keeps ({@code --comment}); nothing acts on it, so {@code srun} takes it too.
     */
    COMMENT("comment", false, Flag.valued("comment", "TEXT", "a free note shown in the queue (one line, at most "
            + JobSpec.MAX_COMMENT_CHARS + " characters)"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            JobSpec.commentProblem(value).ifPresent(problem -> {
                throw at.error("bad comment: " + problem, "give one line of text, quoted when it holds spaces:"
                        + " comment='nightly sweep'");
            });
            p.spec.comment(Optional.of(value));
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.comment().map(c -> "comment=" + AttributeBlock.quote(c));
        }

        @Override
        public boolean shown() {
            return true;
        }

        @Override
        public Optional<String> shownText(JobSpec s) {
            return s.comment();
        }
    },
    /**
     * {@code unique}: {@link JobSpec#unique()}, not queued (or, in a jobs file, not run) while the same job,
     * command and every other attribute, is queued, running or has ended ok; {@code srun} takes it too.
     */
    UNIQUE("unique", true, Flag.bare("unique", "not queued again when the same job (command and attributes) is"
            + " queued, running or ended ok; the answer names that job"), false, false) {
        @Override
        void read(String value, Where at, JobsFileParser.Parsed p) {
            p.spec.unique(true);
        }

        @Override
        public Optional<String> written(JobSpec s) {
            return s.unique() ? Optional.of("unique") : Optional.empty();
        }
    };

    /** Every row, in table order (the order {@link JobSpec#toLine()} writes them); an unmodifiable list. */
    public static final List<Attribute> ALL = List.of(values());
    /**
     * The rows that are {@linkplain #shown() shown}, in table order: what a job's {@link Notes} may hold, and
     * the fields the queue answer, the status board and the dashboard carry at a row's note position; an
     * unmodifiable list.
     */
    public static final List<Attribute> SHOWN = ALL.stream().filter(Attribute::shown).toList();
    /** What a bad {@code gpus=} is told to write instead. */
    /** A list of GPU indices, such as {@code 0,1} or {@code 0-3,6}: two or more, or a range. */
    private static final java.util.regex.Pattern GPU_LIST = java.util.regex.Pattern.compile(
            "[0-9]{1,6}(-[0-9]{1,6})?(,[0-9]{1,6}(-[0-9]{1,6})?)+|[0-9]{1,6}-[0-9]{1,6}");
    private static final String GPUS_FIX = "give a whole number of GPUs from 1 to " + JobsFileParser.MAX_GPUS
            + ", or a share of one GPU between 0 and 1 such as 0.5";
    private static final Map<String, Attribute> BY_KEY = ALL.stream()
            .collect(Collectors.toUnmodifiableMap(Attribute::key, Function.identity()));

    private final String key;
    private final boolean bare;
    private final Optional<Flag> flag;
    private final boolean daemonLaunch;
    private final boolean ruleFills;

    Attribute(String key, boolean bare, Optional<Flag> flag, boolean daemonLaunch, boolean ruleFills) {
        this.key = key;
        this.bare = bare;
        this.flag = flag;
        this.daemonLaunch = daemonLaunch;
        this.ruleFills = ruleFills;
    }

    /**
     * The option of {@code gpusched submit} and {@code gpusched srun}
     * that sets an attribute: {@code --KEY VALUE}, or {@code --KEY} alone for a bare word.
     *
     * @param option the option as typed, e.g. {@code --vram}
     * @param metavar the value's name in the usage line, e.g. {@code 18G}; empty for a bare word
     * @param help one line saying what it does, for the options list
     */
    public record Flag(String option, Optional<String> metavar, String help) {
        /**
         * @param option see {@link #option()}
         * @param metavar see {@link #metavar()}
         * @param help see {@link #help()}
         */
        public Flag {
            Objects.requireNonNull(option, "option");
            Objects.requireNonNull(metavar, "metavar");
            Objects.requireNonNull(help, "help");
        }

        static Optional<Flag> valued(String key, String metavar, String help) {
            return Optional.of(new Flag("--" + key, Optional.of(metavar), help));
        }

        static Optional<Flag> bare(String key, String help) {
            return Optional.of(new Flag("--" + key, Optional.empty(), help));
        }
    }

    /** Where a value is read, for its errors: the token as written, the source and the line. */
    record Where(String token, String source, int line) {
        JobSpecException error(String problem, String expected) {
            return new JobSpecException(source, line, token, problem, expected);
        }
    }

    /**
     * Reads this attribute's value into the line being parsed.
     *
     * @param value the value, unquoted; empty for a bare word
     * @throws JobSpecException naming the token, when the value is not one this attribute takes
     */
    abstract void read(String value, Where at, JobsFileParser.Parsed p);

    /**
     * How {@link JobSpec#toLine()} writes this attribute of a job.
     *
     * @param spec a job
     * @return the block token, e.g. {@code vram=18432} or {@code cancel}, with its value quoted when it
     *     must be; empty when the job has this attribute's default (and always for {@link #AFTER_OK},
     *     written as {@link #AFTER})
     */
    public abstract Optional<String> written(JobSpec spec);

    /** @return the key as a block spells it, lower case, e.g. {@code gpu-ids} (a block reads it in any case) */
    public String key() {
        return key;
    }

    /** @return whether it is a bare word ({@code cancel}, {@code preemptible}, {@code tty}) rather than {@code key=value} */
    public boolean bare() {
        return bare;
    }

    /** @return the CLI option that sets it; empty when none does (e.g. {@code cancel}, a jobs-file edit) */
    public Optional<Flag> flag() {
        return flag;
    }

    /**
     * @return whether it acts when the daemon launches the command (its environment, its terminal, its
     *     launch again after an OOM): {@code gpusched srun} runs its command itself, in the caller's
     *     terminal, so it applies {@code conda}/{@code setup} itself, has a terminal already, and runs once
     */
    public boolean daemonLaunch() {
        return daemonLaunch;
    }

    /**
     * @return whether a requirement rule fills it in for a line that does not declare it (see
     *     {@link Requirements}); a rule's file names it by the same key
     */
    public boolean ruleFills() {
        return ruleFills;
    }

    /**
     * Whether the queue shows it: a note after the job's command in {@code gpusched queue} ({@code # TEXT}), its
     * table's {@code %k} column, {@code gpusched top} and the dashboard, and a field of the queue answer, the
     * status board and the events named {@link #fieldName()}. A shown row says what the note reads in
     * {@link #shownText(JobSpec)}; everything else on the way to the screen iterates {@link #SHOWN}.
     *
     * @return whether it is shown; false for most
     */
    public boolean shown() {
        return false;
    }

    /**
     * @param spec a job
     * @return what its note of this attribute reads, e.g. {@code nightly sweep}; empty when the job has none or
     *     the attribute is not {@linkplain #shown() shown}
     */
    public Optional<String> shownText(JobSpec spec) {
        return Optional.empty();
    }

    /**
     * @return the name of its field in JSON (the queue answer, the status board, the events): the key in snake
     *     case, e.g. {@code comment}, {@code gpu_ids}
     */
    public String fieldName() {
        return key.replace('-', '_');
    }

    /** @return the attribute this one is another spelling of ({@code after-ok} of {@code after}); empty for most */
    public Optional<Attribute> sameAs() {
        return Optional.empty();
    }

    /**
     * @param key a block's key in any case, e.g. {@code VRAM}
     * @return its attribute; empty when no attribute has that key
     */
    public static Optional<Attribute> forKey(String key) {
        return Optional.ofNullable(BY_KEY.get(key.toLowerCase(Locale.ROOT)));
    }

    /** @return the keys of every row in table order, e.g. for a list of known keys */
    static List<String> keys() {
        return ALL.stream().map(Attribute::key).toList();
    }

    /** @return the keys of the bare words, in table order */
    static List<String> bareWords() {
        return ALL.stream().filter(Attribute::bare).map(Attribute::key).toList();
    }

    /** The dependencies that need success (or the others) as one token of a comma-separated list. */
    private static Optional<String> dependencies(JobSpec s, boolean needsSuccess) {
        if (s.scheduling().after().isEmpty()) {
            return Optional.empty(); // most jobs: no stream for nothing
        }
        List<String> names = s.scheduling().after().stream().filter(d -> d.needsSuccess() == needsSuccess)
                .map(Scheduling.Dependency::name).toList();
        return names.isEmpty() ? Optional.empty()
                : Optional.of((needsSuccess ? AFTER : AFTER_ANY).key() + "=" + String.join(",", names));
    }
}
