package io.gpusched.testkit.arbitraries;

import io.gpusched.alloc.GpuShare;
import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.RunEnvironment;
import io.gpusched.jobs.Scheduling;
import io.gpusched.jobs.Units;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * Generators for jobs-file text and {@link JobSpec}s: realistic commands and ones full of brackets,
 * {@code =}, {@code #}, quotes and non-ASCII text; every attribute over its whole valid range with
 * its bounds favoured; arbitrary text with control characters; and near-valid lines whose values are
 * huge, tiny, malformed or followed by CR or NUL.
 *
 * <p>Names and dependencies are checked across a whole file, so specs come in three kinds:
 * {@link #jobSpecs()} has every attribute, for one line on its own; {@link #independentJobSpecs()}
 * has no name and no dependencies, so any number of them make a file whose lines are good or bad on
 * their own; {@link #jobFiles()} gives the specs of one file, with distinct names and dependencies
 * that name jobs of the file and make no cycle.
 *
 * <p>Why one long file: every generator of job lines, good and nearly good, in one place, so the parser
 * properties draw from one definition of what a line can be.
 */
public final class JobSpecArbitraries {
    /** Commands a user would write, some with brackets and {@code =} of their own. */
    public static final List<String> REALISTIC_COMMANDS = List.of(
            "python train.py",
            "python train.py --config a.yaml",
            "torchrun --nproc_per_node=2 train_big.py",
            "bash run_eval.sh",
            "[ -f ckpt.pt ] && python resume.py",
            "echo [vram=8G] is not a block here",
            "python sweep.py --seed 3 # trailing comment",
            "[ -d out ] || mkdir out # a comment after the command",
            "env CUDA_LAUNCH_BLOCKING=1 python debug.py",
            "python3 -c 'print(\"héllo wörld 🚀\")'",
            "sh -c \"sleep 1; exit 3\"",
            "cancel",
            "vram=8G");

    private static final Gen<String> COMMAND_CHAR = Gen.<String>weighted()
            .add(10, Gen.ints('a', 'z').map(c -> String.valueOf((char) c.intValue())))
            .add(3, Gen.ints('0', '9').map(c -> String.valueOf((char) c.intValue())))
            .add(4, Gen.elements(" ", "  ", "\t"))
            .add(4, Gen.elements("[", "]", "=", "#", "-", "_", ".", "/", "'", "\"", "\\", ";", "&", "|", "$", "*"))
            .add(2, Gen.elements("é", "中", "🚀", "\u00a0", "\u2003", "\u3000", "\u200b", "\u0085"))
            .add(1, Gen.elements("vram=", "gpus=", "timeout=", "retries=", "cancel", "[]", "priority=", "gpu-ids=0,1",
                    "preemptible", "on-timeout=requeue", "name=", "after=a,b", "conda=", "setup='", "setup=\"", "\\\""))
            .build();

    private JobSpecArbitraries() {
    }

    /**
     * Commands a jobs-file line or a submission may hold, as the parser yields them: without ASCII
     * spaces and tabs at the ends (other whitespace, such as U+3000, stays part of the command), not
     * blank, no control character but TAB, not starting with {@code #} (only a comment) or {@code ]} (a block's bracket too many), not ending
     * in an odd run of backslashes (one may escape the line end). They may start with {@code [} and
     * may contain anything else.
     *
     * @return the generator
     */
    public static Gen<String> commands() {
        return Gen.<String>weighted()
                .add(1, Gen.elements(REALISTIC_COMMANDS))
                .add(2, Gen.strings(COMMAND_CHAR, 1, 30))
                .build()
                .map(JobSpecArbitraries::stripBlanks)
                .filter(c -> !c.isBlank() && c.chars().noneMatch(ch -> ch < 0x20 && ch != '\t') && !c.startsWith("#")
                        && !c.startsWith("]") && trailingBackslashes(c) % 2 == 0);
    }

    /**
     * A command as the parser keeps it: ASCII spaces and tabs taken off both ends, nothing else.
     *
     * @param s a command as typed
     * @return {@code s} less ASCII spaces and tabs at both ends
     */
    public static String stripBlanks(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return s.substring(from, to);
    }

    /** @return how many backslashes end {@code s} */
    private static int trailingBackslashes(String s) {
        int n = 0;
        while (n < s.length() && s.charAt(s.length() - 1 - n) == '\\') {
            n++;
        }
        return n;
    }

    /** @return per-GPU VRAM declarations in MiB over the whole accepted range, [1, {@link Units#MAX_MIB}] */
    public static Gen<Long> vramMib() {
        return Gen.<Long>weighted()
                .add(2, Gen.longs(1, 160).map(g -> g * 1024))
                .add(2, Gen.logLongs(1, Units.MAX_MIB))
                .add(1, Gen.elements(1L, 1023L, 1024L, 1025L, Units.MAX_MIB - 1, Units.MAX_MIB))
                .build();
    }

    /**
     * @return positive durations up to {@link Units#MAX_DURATION}: whole seconds, minutes and hours,
     *     sub-second fractions down to one nanosecond, and the bounds
     */
    public static Gen<Duration> durations() {
        long maxNanos = Units.MAX_DURATION.toNanos();
        return Gen.<Duration>weighted()
                .add(2, Gen.longs(1, Units.MAX_DURATION.getSeconds()).map(Duration::ofSeconds))
                .add(1, Gen.longs(1, 60 * 24).map(Duration::ofMinutes))
                .add(2, Gen.logLongs(1, maxNanos).map(Duration::ofNanos))
                .add(1, Gen.elements(Duration.ofNanos(1), Duration.ofMillis(250), Duration.ofMinutes(90), Units.MAX_DURATION,
                        Units.MAX_DURATION.minusNanos(1)))
                .build();
    }

    /**
     * Specs as {@link JobSpec#parse} would return them for their own {@link JobSpec#toLine()}: line 1
     * and occurrence 0, every attribute anywhere in its valid range, scheduling ones included: a name
     * and dependencies on other names (never its own) for one job in five. A file of several of these
     * may fail the checks of a whole file (a name twice, a dependency on a name no line gives); use
     * {@link #jobFiles()} for files.
     *
     * @return the generator
     */
    public static Gen<JobSpec> jobSpecs() {
        Gen<JobSpec> independent = independentJobSpecs();
        return (random, size) -> {
            JobSpec spec = independent.next(random, size);
            if (random.nextInt(5) != 0) {
                return spec;
            }
            Optional<String> name = random.nextBoolean() ? Optional.of(names().next(random, size)) : Optional.empty();
            List<Scheduling.Dependency> after = new ArrayList<>();
            Set<String> taken = new LinkedHashSet<>();
            name.ifPresent(taken::add);
            for (int i = random.nextInt(4); i > 0; i--) {
                String n = names().next(random, size);
                if (taken.add(n)) {
                    after.add(new Scheduling.Dependency(n, random.nextInt(3) != 0));
                }
            }
            return withNameAndAfter(spec, name, after);
        };
    }

    /**
     * Specs for one jobs file, in file order, each as {@link #jobSpecs()} gives it (line 1, occurrence
     * 0; the caller numbers them): names are distinct, and each dependency names a job of the list that
     * comes before it in a random order, not always the file's, so there is no cycle and later lines are
     * waited for too. Cancelled jobs are waited for like others.
     *
     * @return lists of 1 to 15 specs
     */
    public static Gen<List<JobSpec>> jobFiles() {
        Gen<List<JobSpec>> specs = Gen.listOf(independentJobSpecs(), 1, 15);
        return (random, size) -> {
            List<JobSpec> jobs = specs.next(random, size);
            int n = jobs.size();
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                order.add(i);
            }
            shuffle(order, random);
            List<Optional<String>> names = new ArrayList<>(Collections.nCopies(n, Optional.empty()));
            Set<String> used = new LinkedHashSet<>();
            for (int i = 0; i < n; i++) {
                if (random.nextInt(4) != 0) {
                    String name = names().next(random, size);
                    if (used.add(name)) {
                        names.set(i, Optional.of(name));
                    }
                }
            }
            List<JobSpec> out = new ArrayList<>(jobs);
            for (int rank = 0; rank < n; rank++) {
                int job = order.get(rank);
                List<Scheduling.Dependency> after = new ArrayList<>();
                for (int earlier = 0; earlier < rank; earlier++) {
                    Optional<String> target = names.get(order.get(earlier));
                    if (target.isPresent() && random.nextInt(3) == 0) {
                        after.add(new Scheduling.Dependency(target.get(), random.nextInt(3) != 0));
                    }
                }
                out.set(job, withNameAndAfter(jobs.get(job), names.get(job), after));
            }
            return List.copyOf(out);
        };
    }

    /**
     * Setup text as a block may hold it: any one line that is not blank and holds no NUL, full of
     * quotes, backslashes, brackets, {@code =} and spaces of every kind, and some a user would write.
     *
     * @return the generator
     */
    public static Gen<String> setups() {
        Gen<String> piece = Gen.<String>weighted()
                .add(4, COMMAND_CHAR)
                .add(3, Gen.elements("'", "\"", "\\", "\\\"", "]", "[", " ", "=", "\u000b", "\f", "\u001c", "\r"))
                .build();
        return Gen.<String>weighted()
                .add(1, Gen.elements(". venv/bin/activate", "source venv/bin/activate", "cd data && export A=1",
                        "[ -f .env ] && . ./.env", "export MSG=\"it's here\"", "module load cuda/12.1"))
                .add(3, Gen.strings(piece, 1, 40))
                .build()
                .filter(v -> !v.isBlank() && v.indexOf('\n') < 0 && v.indexOf('\0') < 0);
    }

    /**
     * Comments {@link JobSpec#commentProblem(String)} accepts: setup-like text full of quotes,
     * backslashes, brackets and spaces (not the control characters a comment refuses), up to
     * {@link JobSpec#MAX_COMMENT_CHARS} characters, and some notes a user would write.
     *
     * @return the generator
     */
    public static Gen<String> comments() {
        return Gen.<String>weighted()
                .add(1, Gen.elements("nightly sweep", "ablation: no dropout", "ask @ada before cancelling", "x", "it's \"v2\"",
                        "a".repeat(JobSpec.MAX_COMMENT_CHARS)))
                .add(3, setups())
                .build()
                .filter(c -> JobSpec.commentProblem(c).isEmpty());
    }

    /**
     * Conda environments {@link RunEnvironment} accepts: names over {@link RunEnvironment#CONDA_NAME}
     * and absolute prefix paths, some with spaces, quotes or brackets.
     *
     * @return the generator
     */
    public static Gen<String> condaEnvs() {
        Gen<String> nameChar = Gen.elements("a", "Z", "0", "_", ".", "+", "-", "t", "9");
        Gen<String> pathChar = Gen.elements("a", "/", " ", "'", "\"", "]", "\\", "é", ".", "-");
        return Gen.<String>weighted()
                .add(2, Gen.elements("base", "torch", "py3.11", "my-env_2", "x", "/opt/conda/envs/torch", "/home/u/my envs/a"))
                .add(2, Gen.elements("a", "Z", "0", "_").with(Gen.strings(nameChar, 0, 20), String::concat))
                .add(1, Gen.constant("/").with(Gen.strings(pathChar, 0, 20), String::concat))
                .build()
                .filter(c -> c.startsWith("/") || RunEnvironment.CONDA_NAME.matcher(c).matches());
    }

    /**
     * What a job runs in: mostly nothing, else a conda environment, a setup, or both, or neither but a
     * terminal ({@code tty}), which any of the others may have too.
     *
     * @return the generator
     */
    public static Gen<RunEnvironment> environments() {
        return (random, size) -> {
            if (random.nextInt(3) != 0) {
                return RunEnvironment.DEFAULT;
            }
            // 0 conda, 1 setup, 2 both, 3 neither: a terminal alone ([tty]); any of them may have one.
            int which = random.nextInt(4);
            Optional<String> conda = which == 0 || which == 2 ? Optional.of(condaEnvs().next(random, size)) : Optional.empty();
            Optional<String> setup = which == 1 || which == 2 ? Optional.of(setups().next(random, size)) : Optional.empty();
            return new RunEnvironment(conda, setup, which == 3 || random.nextInt(4) == 0);
        };
    }

    /**
     * Job names: a few common ones (so lists repeat them) and any others {@link Scheduling#NAME} allows,
     * up to 64 characters.
     *
     * @return the generator
     */
    public static Gen<String> names() {
        Gen<String> first = Gen.elements("a", "b", "Z", "0", "9", "p", "x");
        Gen<String> rest = Gen.elements("a", "z", "Q", "0", "7", "_", ".", "-");
        return Gen.<String>weighted()
                .add(3, Gen.elements("prep", "train", "eval", "a", "b", "c", "Prep", "prep-2", "train.v2", "x_1"))
                .add(2, first.with(Gen.strings(rest, 0, 63), String::concat))
                .add(1, Gen.elements("cancel0", "cancelled", "preemptible-job", "0", "A".repeat(64)))
                .build()
                .filter(n -> Scheduling.NAME.matcher(n).matches());
    }

    /**
     * GPU pins as the parser stores them: distinct canonical indices (small ones most, up to int
     * range) and UUIDs, one to a few, sometimes a long range, at most {@link JobsFileParser#MAX_GPUS}.
     *
     * @return the generator
     */
    public static Gen<List<String>> gpuIds() {
        Gen<String> hex = Gen.elements("0", "9", "a", "f", "A", "F", "-", "3c", "8f2c");
        Gen<String> uuid = Gen.elements("GPU-", "MIG-").with(Gen.elements("0", "a", "F", "8f2c"), String::concat)
                .with(Gen.strings(hex, 0, 12), String::concat);
        Gen<String> one = Gen.<String>weighted()
                .add(4, Gen.ints(0, 15).map(String::valueOf))
                .add(1, Gen.ints(0, Integer.MAX_VALUE).map(String::valueOf))
                .add(2, uuid)
                .build();
        return (random, size) -> {
            Set<String> ids = new LinkedHashSet<>();
            if (random.nextInt(20) == 0) {
                int from = random.nextInt(0, 100);
                int count = random.nextInt(1, JobsFileParser.MAX_GPUS + 1);
                for (int i = 0; i < count; i++) {
                    ids.add(String.valueOf(from + i));
                }
            }
            for (int i = random.nextInt(1, 6); i > 0 && ids.size() < JobsFileParser.MAX_GPUS; i--) {
                ids.add(one.next(random, size));
            }
            List<String> list = new ArrayList<>(ids);
            shuffle(list, random);
            return List.copyOf(list);
        };
    }

    /**
     * Shares of one GPU ({@code gpus=0.5}): the usual halves and quarters, and any decimal in (0, 1) with
     * 1 to {@link GpuShare#MAX_DIGITS} digits after the point, down to the smallest.
     *
     * @return the generator
     */
    public static Gen<GpuShare> gpuShares() {
        Gen<GpuShare> any = (random, size) -> {
            int digits = random.nextInt(1, GpuShare.MAX_DIGITS + 1);
            long scale = BigDecimal.TEN.pow(digits).longValueExact();
            return new GpuShare(BigDecimal.valueOf(random.nextLong(1, scale), digits));
        };
        return Gen.<GpuShare>weighted()
                .add(2, Gen.elements("0.5", "0.25", "0.75", "0.1", "0.333").map(t -> GpuShare.parse(t).orElseThrow()))
                .add(3, any)
                .add(1, Gen.elements(new GpuShare(new BigDecimal("0.000000001")), new GpuShare(new BigDecimal("0.999999999"))))
                .build();
    }

    /**
     * Specs whose line is good or bad on its own in any file: every attribute of {@link #jobSpecs()}
     * but a name and dependencies. Each row of {@link Attribute}'s table that is not checked across a
     * file is drawn, with its own chance, as {@link #setting(Attribute)} draws it, in table order.
     *
     * @return the generator
     */
    public static Gen<JobSpec> independentJobSpecs() {
        return (random, size) -> {
            JobSpec spec = JobSpec.builder(commands().next(random, size)).build();
            for (Attribute a : Attribute.ALL) {
                Setting s = settingOf(a);
                if (!s.acrossFile() && random.nextDouble() < s.chance()) {
                    spec = s.change().next(random, size).apply(spec);
                }
            }
            return spec;
        };
    }

    /**
     * A change that gives a job a value of one attribute other than its default, anywhere in its valid
     * range with its bounds favoured, and adjusts what must agree with it: a share drops a {@code vram},
     * pins lower {@code gpus} to their number, {@code on-timeout=requeue} brings a timeout, a name is
     * not among the job's own dependencies. Every row of {@link Attribute}'s table has one; a row added
     * there does not compile here until it has.
     *
     * @param a the attribute
     * @return the generator of changes, each giving a valid job (line and key kept)
     */
    public static Gen<UnaryOperator<JobSpec>> setting(Attribute a) {
        return settingOf(a).change();
    }

    /**
     * How the generators draw one attribute.
     *
     * @param chance how often {@link #independentJobSpecs()} sets it
     * @param acrossFile whether it is checked across a file (names, dependencies): {@link #jobSpecs()}
     *     and {@link #jobFiles()} draw those their own way
     * @param change see {@link #setting(Attribute)}
     */
    private record Setting(double chance, boolean acrossFile, Gen<UnaryOperator<JobSpec>> change) {
        static Setting of(double chance, Gen<UnaryOperator<JobSpec>> change) {
            return new Setting(chance, false, change);
        }
    }

    private static Setting settingOf(Attribute a) {
        return switch (a) {
            case VRAM -> Setting.of(0.75, Gen.<UnaryOperator<JobSpec>>weighted()
                    .add(8, vramMib().map(v -> s -> s.toBuilder().vramMib(OptionalLong.of(v)).share(Optional.empty())
                            .learnVram(false).build()))
                    // vram=auto: learned, whatever a rule fills in
                    .add(1, Gen.constant(s -> s.toBuilder().vramMib(OptionalLong.empty()).share(Optional.empty())
                            .learnVram(true).build()))
                    .build());
            case GPUS -> Setting.of(0.45, (random, size) -> {
                GpuShare share = gpuShares().next(random, size);
                int count = Gen.ints(2, JobsFileParser.MAX_GPUS).next(random, size);
                boolean whole = random.nextInt(3) != 0;
                return s -> {
                    int pins = s.scheduling().gpuIds().size();
                    if (whole && pins != 1) {
                        // Pinned, all the pins is the default (Scheduling.gpusByDefault): fewer, 1 included.
                        return s.toBuilder().gpus(pins == 0 ? count : 1 + count % (pins - 1)).share(Optional.empty()).build();
                    }
                    // A share of one GPU instead of whole GPUs and a vram (the parser refuses both).
                    return s.toBuilder().gpus(1).share(Optional.of(share)).vramMib(OptionalLong.empty()).learnVram(false).build();
                };
            });
            case TIMEOUT -> Setting.of(0.5, durations().map(t -> s -> s.toBuilder().timeout(Optional.of(t)).build()));
            case RETRIES -> Setting.of(1 / 3.0, Gen.ints(1, JobsFileParser.MAX_RETRIES)
                    .map(n -> s -> s.toBuilder().retries(n).build()));
            case CANCEL -> Setting.of(0.2, Gen.constant(s -> s.toBuilder().cancel(true).build()));
            case PRIORITY -> Setting.of(0.5, Gen.<Integer>weighted()
                    .add(2, Gen.ints(-10, 10))
                    .add(1, Gen.ints(-Scheduling.MAX_PRIORITY, Scheduling.MAX_PRIORITY))
                    .build().filter(p -> p != 0)
                    .map(p -> s -> scheduling(s, p, s.scheduling().gpuIds(), s.scheduling().preemptible(),
                            s.scheduling().onTimeout(), s.scheduling().name(), s.scheduling().after())));
            case GPU_IDS -> Setting.of(0.25, gpuIds().with(Gen.ints(0, Integer.MAX_VALUE), (pins, r) -> s -> {
                // A job pinned to fewer GPUs than it asks for cannot be placed: the parser refuses it.
                JobSpec fitted = s.gpus() > pins.size() ? s.toBuilder().gpus(1 + r % pins.size()).build() : s;
                Scheduling c = fitted.scheduling();
                return scheduling(fitted, c.priority(), pins, c.preemptible(), c.onTimeout(), c.name(), c.after());
            }));
            case PREEMPTIBLE -> Setting.of(0.2, Gen.constant(s -> {
                Scheduling c = s.scheduling();
                return scheduling(s, c.priority(), c.gpuIds(), true, c.onTimeout(), c.name(), c.after());
            }));
            case ON_TIMEOUT -> Setting.of(1 / 6.0, durations().map(t -> s -> {
                // on-timeout=requeue needs a timeout on the same line.
                JobSpec timed = s.timeout().isPresent() ? s : s.toBuilder().timeout(Optional.of(t)).build();
                Scheduling c = timed.scheduling();
                return scheduling(timed, c.priority(), c.gpuIds(), c.preemptible(), Scheduling.OnTimeout.REQUEUE, c.name(),
                        c.after());
            }));
            case NAME -> new Setting(0, true, names().map(n -> s -> {
                Scheduling c = s.scheduling();
                List<Scheduling.Dependency> others = c.after().stream().filter(d -> !d.name().equals(n)).toList();
                return scheduling(s, c.priority(), c.gpuIds(), c.preemptible(), c.onTimeout(), Optional.of(n), others);
            }));
            case AFTER, AFTER_OK -> new Setting(0, true, dependencies(true));
            case AFTER_ANY -> new Setting(0, true, dependencies(false));
            case CONDA -> Setting.of(1 / 6.0, condaEnvs().map(c -> s -> s.toBuilder().environment(new RunEnvironment(
                    Optional.of(c), s.environment().setup(), s.environment().tty())).build()));
            case SETUP -> Setting.of(1 / 6.0, setups().map(v -> s -> s.toBuilder().environment(new RunEnvironment(
                    s.environment().conda(), Optional.of(v), s.environment().tty())).build()));
            case TTY -> Setting.of(1 / 7.0, Gen.constant(s -> s.toBuilder().environment(s.environment().withTty()).build()));
            case COMMENT -> Setting.of(1 / 6.0, comments().map(c -> s -> s.toBuilder().comment(Optional.of(c)).build()));
            case UNIQUE -> Setting.of(0.2, Gen.constant(s -> s.toBuilder().unique(true).build()));
        };
    }

    /** One to three dependencies added, never on the job's own name or twice on one job. */
    private static Gen<UnaryOperator<JobSpec>> dependencies(boolean needsSuccess) {
        return Gen.listOf(names(), 1, 3).map(drawn -> s -> {
            Scheduling c = s.scheduling();
            List<Scheduling.Dependency> after = new ArrayList<>(c.after());
            Set<String> taken = new LinkedHashSet<>();
            c.name().ifPresent(taken::add);
            after.forEach(d -> taken.add(d.name()));
            for (String n : drawn) {
                if (taken.add(n)) {
                    after.add(new Scheduling.Dependency(n, needsSuccess));
                }
            }
            for (int i = 0; after.size() == c.after().size(); i++) {
                // Every name drawn was taken already: one that is not, so the change always adds one.
                if (taken.add("dep" + i)) {
                    after.add(new Scheduling.Dependency("dep" + i, needsSuccess));
                }
            }
            return scheduling(s, c.priority(), c.gpuIds(), c.preemptible(), c.onTimeout(), c.name(), after);
        });
    }

    /** {@code s} with these scheduling attributes ({@link Scheduling#DEFAULT} itself when they are its). */
    private static JobSpec scheduling(JobSpec s, int priority, List<String> gpuIds, boolean preemptible,
                                      Scheduling.OnTimeout onTimeout, Optional<String> name,
                                      List<Scheduling.Dependency> after) {
        Scheduling c = new Scheduling(priority, gpuIds, preemptible, onTimeout, name, after);
        return s.toBuilder().scheduling(c.equals(Scheduling.DEFAULT) ? Scheduling.DEFAULT : c).build();
    }

    private static JobSpec withNameAndAfter(JobSpec spec, Optional<String> name, List<Scheduling.Dependency> after) {
        Scheduling s = spec.scheduling();
        return scheduling(spec, s.priority(), s.gpuIds(), s.preemptible(), s.onTimeout(), name, after);
    }

    private static <T> void shuffle(List<T> list, RandomGenerator random) {
        for (int i = list.size() - 1; i > 0; i--) {
            Collections.swap(list, i, random.nextInt(i + 1));
        }
    }

    /**
     * Text of any kind: arbitrary UTF-16 units (lone surrogates included), control characters, NUL,
     * CR and LF, brackets, {@code =}, digits, unit suffixes and fragments of keys.
     *
     * @return the generator
     */
    public static Gen<String> anyText() {
        Gen<String> piece = Gen.<String>weighted()
                .add(4, Gen.ints(0, 0xFFFF).map(c -> String.valueOf((char) c.intValue())))
                .add(3, Gen.ints(0, 0x1F).map(c -> String.valueOf((char) c.intValue())))
                .add(6, Gen.elements("[", "]", "=", " ", "\t", "\n", "\r\n", "\r", "\0", "#", "\uFEFF", ".", "-", "+"))
                .add(4, Gen.ints('0', '9').map(c -> String.valueOf((char) c.intValue())))
                .add(3, Gen.elements("G", "g", "GiB", "GB", "M", "MiB", "s", "m", "h", "d", "e309", "k"))
                .add(3, Gen.elements("vram", "gpus", "timeout", "retries", "cancel", "VRAM", "vram=", "[vram=", "python x.py"))
                .add(3, Gen.ints('a', 'z').map(c -> String.valueOf((char) c.intValue())))
                .build();
        return Gen.strings(piece, 0, 40);
    }

    /**
     * Lines that are almost right: a block whose values are huge, tiny, signed, exponent-written,
     * non-ASCII digits, empty or duplicated, GPU lists with bad entries, backwards or huge ranges,
     * sometimes with a CRLF end, a NUL byte or an unclosed bracket. They hold no {@code name} and no
     * {@code after}, so each line is good or bad on its own.
     *
     * @return the generator
     */
    public static Gen<String> nearValidLines() {
        Gen<String> number = Gen.<String>weighted()
                .add(2, Gen.elements("0", "1", "8", "1024", "1025", "2147483647", "2147483648", "99999999999",
                        "9999999999", "99999999999999999999", "0000000001", "00000000001", "1e309", "1E3", "-1", "+1",
                        "-0", "0.0000001", "0.0000000001", ".5", "5.", ".", "1..2", "NaN", "Infinity", "１２", "٣",
                        "0x10", "1_000", "", " "))
                .add(1, Gen.strings(Gen.ints('0', '9').map(c -> String.valueOf((char) c.intValue())), 1, 45))
                .build();
        Gen<String> suffix = Gen.elements("", "", "G", "GiB", "gb", "M", "MiB", "s", "m", "h", "d", "D", "ms", "T", "e5");
        Gen<String> key = Gen.elements("vram", "gpus", "timeout", "retries", "VRAM", "Timeout", "cancel", "vrma", "priority",
                "gpu-ids", "Gpu-Ids", "on-timeout");
        Gen<String> list = Gen.strings(Gen.<String>weighted().add(3, number).add(1, Gen.elements(",", "-", "GPU-", "MIG-", "a",
                ",,", "2-1", "0-99999999", "GPU-8f2c")).build(), 1, 5);
        Gen<String> token = Gen.<String>weighted()
                .add(6, (random, size) -> key.next(random, size) + "=" + number.next(random, size) + suffix.next(random, size))
                .add(2, (random, size) -> Gen.elements("gpu-ids=", "priority=-", "priority=").next(random, size) + list.next(random, size))
                .add(1, Gen.elements("cancel", "CANCEL", "cancel=", "=", "==", "vram", "x", "preemptible", "Preemptible=",
                        "on-timeout=requeue", "on-timeout=FAIL", "on-timeout=", "timeout=1h,on-timeout=requeue"))
                .add(1, Gen.elements("conda=torch", "conda=", "conda=-n", "conda=a/b", "conda='/opt/x y'", "setup=true",
                        "setup='. venv/bin/activate'", "setup='unclosed", "setup=\"a \\\" b\"", "setup=\"", "setup=''",
                        "setup='a'b", "setup='x]'", "vram='8G'", "Setup=x", "CONDA=x"))
                .build();
        Gen<String> block = Gen.listOf(token, 0, 4).map(tokens -> "[" + String.join(" ", tokens) + "]");
        Gen<String> ending = Gen.elements("", "", "\r", "\r\n", "\0", " \0", "\u0085");
        return (random, size) -> {
            String b = block.next(random, size);
            if (random.nextInt(15) == 0) {
                b = b.substring(0, b.length() - 1);
            }
            return b + " " + commands().next(random, size) + ending.next(random, size);
        };
    }
}
