package io.gpusched.slurm;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Turns a gpusched job into {@code sbatch} options. Pure: no processes, no files, no clock.
 *
 * <ul>
 *   <li>{@code gpus=N} without {@code vram} → {@code --gres=gpu:N} (whole GPUs; undeclared is one whole GPU);</li>
 *   <li>{@code vram=V} on one GPU → {@code --gres=shard:K}, K = ⌈V ÷ shard MiB⌉, which must fit in one GPU's
 *       shards (Slurm places a shard request on one GPU);</li>
 *   <li>{@code vram=V gpus=N} with N &gt; 1 → {@code --gres=gpu:N}: shards never span GPUs, so whole GPUs, and
 *       V must fit one GPU;</li>
 *   <li>a share {@code gpus=F} → {@code --gres=shard:K}, K = ⌈F × shards per GPU⌉;</li>
 *   <li>{@code timeout} → {@code --time=M}, whole minutes rounded up (Slurm's unit);</li>
 *   <li>{@code vram=auto} → as {@code vram=} with the declaration the executor learned from the journal's peaks
 *       (given to {@link #map(JobSpec, OptionalLong, String)}), or a whole GPU while nothing was learned;</li>
 *   <li>{@code comment} → {@code --comment=TEXT}, as written (one argument of sbatch's argv, so no quoting).</li>
 * </ul>
 * What Slurm cannot express ({@code gpu-ids}, {@code tty}, {@code preemptible}, {@code on-timeout=requeue},
 * {@code priority}, {@code after}, {@code conda}, {@code setup}) is refused with one line
 * naming the file, the line and the fix; nothing is silently dropped. {@link #treatment(Attribute)} says
 * which for each row of the attribute table, and a row without a treatment does not compile.
 *
 * <p>Shards do not fence memory: the declaration only packs jobs, and the verdict is judged on what the
 * wrapper measured inside the job, never on what Slurm granted.
 */
public final class SlurmMapping {
    private final long shardMib;
    private final int shardsPerGpu;

    /**
     * @param shardMib MiB one shard stands for (e.g. 10240 for an 80 GB card with {@code Count=8}), at least 1
     * @param shardsPerGpu shards each GPU has in the cluster's {@code gres.conf}, at least 1
     * @throws IllegalArgumentException if either is below 1
     */
    public SlurmMapping(long shardMib, int shardsPerGpu) {
        if (shardMib < 1 || shardsPerGpu < 1) {
            throw new IllegalArgumentException("--shard-mib and --gpu-shards must be at least 1, got " + shardMib
                    + " and " + shardsPerGpu);
        }
        this.shardMib = shardMib;
        this.shardsPerGpu = shardsPerGpu;
    }

    /** @return MiB one shard stands for */
    public long shardMib() {
        return shardMib;
    }

    /** @return shards per GPU */
    public int shardsPerGpu() {
        return shardsPerGpu;
    }

    /** @return MiB of one whole GPU as the cluster's shards describe it */
    public long gpuMib() {
        return shardMib * shardsPerGpu;
    }

    /**
     * @param spec a job of a jobs file
     * @param source the file's name, for the refusal's {@code file:line:}
     * @return its request, or why Slurm cannot run it
     */
    public SlurmRequest map(JobSpec spec, String source) {
        return map(spec, spec.vramMib(), source);
    }

    /**
     * As {@link #map(JobSpec, String)} with another declaration, e.g. the bumped one of an OOM retry.
     *
     * @param spec a job of a jobs file
     * @param vramMib the declaration to ask for, in MiB per GPU (its {@code vram} or a retry's); empty: as written
     * @param source the file's name, for the refusal's {@code file:line:}
     * @return its request, or why Slurm cannot run it
     */
    public SlurmRequest map(JobSpec spec, OptionalLong vramMib, String source) {
        String where = source + ":" + spec.line() + ": ";
        String unsupported = unsupported(spec);
        if (!unsupported.isEmpty()) {
            return new SlurmRequest.Refused(where + unsupported);
        }
        String gres;
        OptionalLong declared;
        if (vramMib.isPresent()) {
            long v = vramMib.getAsLong();
            long shards = ceilDiv(v, shardMib);
            if (shards > shardsPerGpu) {
                return new SlurmRequest.Refused(where + "vram=" + v + " MiB needs " + shards + " shards of " + shardMib
                        + " MiB but one GPU has " + shardsPerGpu + "; lower vram, or give the cluster's --shard-mib and"
                        + " --gpu-shards");
            }
            gres = spec.gpus() > 1 ? "gpu:" + spec.gpus() : "shard:" + shards;
            declared = vramMib;
        } else if (spec.share().isPresent()) {
            BigDecimal f = spec.share().get().fraction();
            int shards = f.multiply(BigDecimal.valueOf(shardsPerGpu)).setScale(0, RoundingMode.CEILING).intValueExact();
            shards = Math.max(1, Math.min(shards, shardsPerGpu));
            gres = "shard:" + shards;
            declared = OptionalLong.of(shards * shardMib);
        } else {
            gres = "gpu:" + spec.gpus();
            declared = OptionalLong.empty();
        }
        List<String> options = new ArrayList<>();
        options.add("--gres=" + gres);
        OptionalLong minutes = OptionalLong.empty();
        if (spec.timeout().isPresent()) {
            minutes = OptionalLong.of(minutes(spec.timeout().get()));
            options.add("--time=" + minutes.getAsLong());
        }
        spec.comment().ifPresent(c -> options.add("--comment=" + c));
        return new SlurmRequest.Mapped(gres, declared, minutes, options);
    }

    /** Whole minutes, rounded up, at least 1: Slurm keeps time limits in minutes. */
    static long minutes(Duration timeout) {
        long seconds = timeout.getSeconds() + (timeout.getNano() > 0 ? 1 : 0);
        return Math.max(1, ceilDiv(seconds, 60));
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /**
     * What a Slurm run does with one attribute a line sets: every row of the attribute table has one.
     */
    public sealed interface Treatment {
    }

    /**
     * Asked of Slurm with {@code sbatch} options.
     *
     * @param how which options, for a reader
     */
    public record Sbatch(String how) implements Treatment {
    }

    /**
     * Carried out by gpusched's Slurm executor itself; nothing to ask of Slurm.
     *
     * @param how what the executor does, for a reader
     */
    public record ByExecutor(String how) implements Treatment {
    }

    /**
     * Slurm cannot express it: a line that sets it is refused, never run without it.
     *
     * @param why the refusal for a job that sets it: what cannot be honoured, why, and the fix (one line,
     *     without the {@code file:line:} prefix)
     */
    public record Refused(Function<JobSpec, String> why) implements Treatment {
    }

    /**
     * @param a a row of the attribute table
     * @return what a Slurm run does with it when a line sets it
     */
    public static Treatment treatment(Attribute a) {
        String without = " or run the file without --executor slurm";
        return switch (a) {
            case VRAM -> new Sbatch("--gres=shard:K on one GPU, gpu:N on several; vram=auto asks for what was learned");
            case GPUS -> new Sbatch("--gres=gpu:N, or shard:K for a share of one GPU");
            case TIMEOUT -> new Sbatch("--time=M, whole minutes rounded up");
            case COMMENT -> new Sbatch("--comment=TEXT, the note as written");
            case RETRIES -> new ByExecutor("an attempt that ran out of GPU memory is submitted again with more");
            case CANCEL -> new ByExecutor("the job is not submitted, or scancel'led once the line says cancel");
            case NAME -> new ByExecutor("nothing to do: a name only serves after=, which is refused");
            case UNIQUE -> new ByExecutor("a line the same as an earlier one queued, running or ended ok is not submitted");
            case GPU_IDS -> new Refused(s -> "gpu-ids=" + String.join(",", s.scheduling().gpuIds())
                    + " cannot be honoured on Slurm (Slurm chooses the GPUs); remove gpu-ids from the line," + without);
            case TTY -> new Refused(s -> "tty cannot be honoured on Slurm (a batch job has no terminal); remove tty from"
                    + " the line," + without);
            case PREEMPTIBLE -> new Refused(s -> "preemptible cannot be honoured on Slurm by gpusched (that is the"
                    + " cluster's PreemptType); remove it from the line," + without);
            case ON_TIMEOUT -> new Refused(s -> "on-timeout=requeue cannot be honoured on Slurm (a Slurm time limit ends"
                    + " the job); remove it from the line," + without);
            case PRIORITY -> new Refused(s -> "priority=" + s.scheduling().priority() + " cannot be honoured on Slurm (the"
                    + " cluster's priority plugin orders jobs); remove it from the line," + without);
            case AFTER, AFTER_OK, AFTER_ANY -> new Refused(s -> "after=/after-ok=/after-any= ("
                    + String.join(" ", Stream.of(Attribute.AFTER, Attribute.AFTER_ANY).flatMap(d -> d.written(s).stream())
                            .toList()) + ") cannot be honoured on Slurm by gpusched yet; remove it from the line," + without);
            case CONDA, SETUP -> new Refused(s -> "conda=/setup= cannot be honoured on Slurm by gpusched yet; put the"
                    + " activation in the command (. venv/bin/activate && python train.py)," + without);
        };
    }

    /**
     * The refused rows in the order they are checked: first those refused before the table existed, in
     * their order then, so a line that sets several is told of the same one as before; then any other
     * refused row, in table order.
     */
    private static final List<Attribute> REFUSAL_ORDER = Stream.concat(
            Stream.of(Attribute.GPU_IDS, Attribute.TTY, Attribute.PREEMPTIBLE, Attribute.ON_TIMEOUT, Attribute.PRIORITY,
                    Attribute.AFTER, Attribute.AFTER_ANY, Attribute.CONDA, Attribute.SETUP),
            Attribute.ALL.stream()).distinct().filter(a -> treatment(a) instanceof Refused).toList();

    /** The first attribute Slurm cannot express, said as a refusal with its fix; empty when there is none. */
    private static String unsupported(JobSpec spec) {
        for (Attribute a : REFUSAL_ORDER) {
            if (a.written(spec).isPresent() && treatment(a) instanceof Refused r) {
                return r.why().apply(spec);
            }
        }
        return "";
    }
}
