package io.gpusched.testkit.arbitraries;

import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Units;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Generators for jobs-file text and {@link JobSpec}s: realistic commands and ones full of brackets,
 * {@code =}, {@code #}, quotes and non-ASCII text; every attribute over its whole valid range with
 * its bounds favoured; arbitrary text with control characters; and near-valid lines whose values are
 * huge, tiny, malformed or followed by CR or NUL.
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
            "# not a comment once it follows a block",
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
            .add(2, Gen.elements("é", "中", "🚀", "\u00a0", "\u2003", "\u200b", "\u0085", "\r", "\u0007", "\u001b"))
            .add(1, Gen.elements("vram=", "gpus=", "timeout=", "retries=", "cancel", "[]"))
            .build();

    private JobSpecArbitraries() {
    }

    /**
     * Commands as the parser yields them: stripped of surrounding whitespace, not blank, one line,
     * without NUL. They may start with {@code [} or {@code #} and may contain anything else.
     *
     * @return the generator
     */
    public static Gen<String> commands() {
        return Gen.<String>weighted()
                .add(1, Gen.elements(REALISTIC_COMMANDS))
                .add(2, Gen.strings(COMMAND_CHAR, 1, 30))
                .build()
                .map(String::strip)
                .filter(c -> !c.isEmpty() && c.indexOf('\n') < 0 && c.indexOf('\0') < 0);
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
     * and occurrence 0, every attribute anywhere in its valid range.
     *
     * @return the generator
     */
    public static Gen<JobSpec> jobSpecs() {
        Gen<OptionalLong> vram = Gen.<OptionalLong>weighted()
                .add(1, Gen.constant(OptionalLong.empty()))
                .add(2, vramMib().map(OptionalLong::of))
                .build();
        Gen<Integer> gpus = Gen.<Integer>weighted()
                .add(3, Gen.constant(1))
                .add(2, Gen.ints(1, JobsFileParser.MAX_GPUS))
                .build();
        Gen<Optional<Duration>> timeout = Gen.<Optional<Duration>>weighted()
                .add(1, Gen.constant(Optional.empty()))
                .add(1, durations().map(Optional::of))
                .build();
        Gen<Integer> retries = Gen.<Integer>weighted()
                .add(2, Gen.constant(0))
                .add(1, Gen.ints(0, JobsFileParser.MAX_RETRIES))
                .build();
        return (random, size) -> {
            String command = commands().next(random, size);
            return new JobSpec(command, vram.next(random, size), gpus.next(random, size), timeout.next(random, size),
                    retries.next(random, size), random.nextInt(5) == 0, 1, JobKeys.key(command, 0));
        };
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
     * non-ASCII digits, empty or duplicated, sometimes with a CRLF end, a NUL byte or an unclosed
     * bracket.
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
        Gen<String> key = Gen.elements("vram", "gpus", "timeout", "retries", "VRAM", "Timeout", "cancel", "vrma");
        Gen<String> token = Gen.<String>weighted()
                .add(6, (random, size) -> key.next(random, size) + "=" + number.next(random, size) + suffix.next(random, size))
                .add(1, Gen.elements("cancel", "CANCEL", "cancel=", "=", "==", "vram", "x"))
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
