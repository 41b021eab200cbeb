package io.gpusched.jobs;

import io.gpusched.alloc.GpuShare;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Requirement rules: an ordered list of patterns on a job's command, each with the attributes it
 * implies, and a default for a command no rule matches. Pure: no files, no clock (the file is read by
 * {@link RequirementsParser}, and re-read live by the scheduler).
 *
 * <p>Precedence, attribute by attribute: what the line declares wins; else the first rule whose
 * pattern matches the command; else the default; else the line's own default. A line "declares" an
 * attribute when it differs from the default a line without it gets: {@code vram} and {@code timeout}
 * when present, {@code gpus} other than 1, {@code retries} other than 0 (a line's {@code [gpus=1]} reads
 * the same as none, so a rule's {@code gpus} applies to it); a share ({@code gpus=0.5}) declares both
 * {@code vram} and {@code gpus}. A line that learns its {@code vram} ({@code vram=auto}) still gets the
 * rule's figure here: it is what the job asks for until a run teaches better.
 *
 * <p>A rule's share ({@link Rule#share()}, {@code "gpus": 0.5}) is its memory and its GPU count at
 * once, as on a line: it applies to a line that declares neither (its {@code gpus} read as none, as
 * above), which then asks for that share of one GPU, among its pins if it has any. A line that says
 * {@code vram=auto} does not take a share: a share is no figure in MiB to learn from, and the line's
 * {@code auto} is its own answer to the same question. The scheduler's {@code --auto-vram} is not the
 * line's answer, so there the rule's share wins ({@link #apply(JobSpec, boolean)}).
 *
 * @param rules the rules, in the order they are tried
 * @param fallback the default's attributes, named {@code default}; {@link Rule#NONE}'s when there is none
 */
public record Requirements(List<Rule> rules, Rule fallback) {

    /**
     * Compiled expressions by text. A record keeps no derived state, and the queue is re-derived on every
     * change (10,000 queued jobs times each rule), so compiling per match would dominate; live edits may
     * add patterns, so the cache is emptied past a bound rather than kept forever.
     */
    private static final Map<String, Pattern> COMPILED = new ConcurrentHashMap<>();

    private static Pattern compiled(String regex) {
        if (COMPILED.size() > 1024) {
            COMPILED.clear();
        }
        return COMPILED.computeIfAbsent(regex, Pattern::compile);
    }

    /** No rules and an empty default: {@link #apply} changes nothing. */
    public static final Requirements NONE = new Requirements(List.of(), Rule.NONE);

    /**
     * Copies the list.
     *
     * @param rules see {@link #rules()}
     * @param fallback see {@link #fallback()}
     */
    public Requirements {
        rules = List.copyOf(rules);
        Objects.requireNonNull(fallback, "fallback");
    }

    /**
     * The attributes a rule implies, and when it applies.
     *
     * @param name how the board and log name it, e.g. {@code qwen2.5-7b}
     * @param pattern the text matched: a literal substring of the command, or (when {@code regex}) a
     *     Java regular expression found anywhere in it ({@link java.util.regex.Matcher#find()})
     * @param regex whether {@code pattern} is a regular expression (the file's {@code re:} prefix)
     * @param vramMib GPU memory per GPU in MiB, if the rule sets it
     * @param gpus how many GPUs, if the rule sets it (1 to {@link JobsFileParser#MAX_GPUS})
     * @param timeout the wall-clock limit, if the rule sets it
     * @param retries CUDA-OOM retries, if the rule sets it (at least 0)
     * @param share a share of one GPU's memory, if the rule sets one ({@code "gpus": 0.5}, or a model's
     *     {@code 0.5} in gpu_scheduler's {@code llm_config.json}); never with {@code vramMib} or {@code gpus}
     */
    public record Rule(String name, String pattern, boolean regex, OptionalLong vramMib, OptionalInt gpus,
                       Optional<Duration> timeout, OptionalInt retries, Optional<GpuShare> share) {

        /** A rule that matches nothing and sets nothing: the default of a file without one. */
        public static final Rule NONE = new Rule("default", "", false, OptionalLong.empty(), OptionalInt.empty(),
                Optional.empty(), OptionalInt.empty());

        /**
         * A rule of whole GPUs, without a share.
         *
         * @param name see {@link #name()}
         * @param pattern see {@link #pattern()}
         * @param regex see {@link #regex()}
         * @param vramMib see {@link #vramMib()}
         * @param gpus see {@link #gpus()}
         * @param timeout see {@link #timeout()}
         * @param retries see {@link #retries()}
         */
        public Rule(String name, String pattern, boolean regex, OptionalLong vramMib, OptionalInt gpus,
                    Optional<Duration> timeout, OptionalInt retries) {
            this(name, pattern, regex, vramMib, gpus, timeout, retries, Optional.empty());
        }

        /**
         * Checks the values (the parser reports them with the file's position first).
         *
         * @param name see {@link #name()}
         * @param pattern see {@link #pattern()}
         * @param regex see {@link #regex()}
         * @param vramMib see {@link #vramMib()}
         * @param gpus see {@link #gpus()}
         * @param timeout see {@link #timeout()}
         * @param retries see {@link #retries()}
         * @param share see {@link #share()}
         */
        public Rule {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(vramMib, "vramMib");
            Objects.requireNonNull(gpus, "gpus");
            Objects.requireNonNull(timeout, "timeout");
            Objects.requireNonNull(retries, "retries");
            Objects.requireNonNull(share, "share");
            if (share.isPresent() && (vramMib.isPresent() || gpus.isPresent())) {
                throw new IllegalArgumentException("a share (gpus " + share.get() + ") is the rule's memory and GPU count:"
                        + " not with vramMib or gpus");
            }
            if (vramMib.isPresent() && (vramMib.getAsLong() < 1 || vramMib.getAsLong() > Units.MAX_MIB)) {
                throw new IllegalArgumentException("vramMib must be in [1, " + Units.MAX_MIB + "]");
            }
            if (gpus.isPresent() && (gpus.getAsInt() < 1 || gpus.getAsInt() > JobsFileParser.MAX_GPUS)) {
                throw new IllegalArgumentException("gpus must be in [1, " + JobsFileParser.MAX_GPUS + "]");
            }
            if (timeout.isPresent() && (timeout.get().isNegative() || timeout.get().isZero())) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            if (retries.isPresent() && retries.getAsInt() < 0) {
                throw new IllegalArgumentException("retries must be >= 0");
            }
            if (regex) {
                // Compiled here so a bad expression fails where the rule is made, not per command.
                Pattern.compile(pattern);
            }
        }

        /**
         * @param command a job's command
         * @return whether this rule's pattern is in it
         */
        public boolean matches(String command) {
            return regex ? compiled(pattern).matcher(command).find() : command.contains(pattern);
        }

        /** @return whether the rule sets no attribute at all */
        public boolean empty() {
            return vramMib.isEmpty() && gpus.isEmpty() && timeout.isEmpty() && retries.isEmpty() && share.isEmpty();
        }
    }

    /**
     * A job with the rules applied.
     *
     * @param spec the job, each attribute it did not declare taken from the rule
     * @param rule the name of the rule (or {@code default}) that gave it at least one attribute; empty
     *     when the line declared all a rule would set, or nothing matched
     */
    public record Applied(JobSpec spec, Optional<String> rule) {
        /**
         * @param spec see {@link #spec()}
         * @param rule see {@link #rule()}
         */
        public Applied {
            Objects.requireNonNull(spec, "spec");
            Objects.requireNonNull(rule, "rule");
        }
    }

    /**
     * @param command a job's command
     * @return the first rule that matches it, else the default
     */
    public Rule ruleFor(String command) {
        for (Rule r : rules) {
            if (r.matches(command)) {
                return r;
            }
        }
        return fallback;
    }

    /**
     * {@link #apply(JobSpec)} under the scheduler's {@code --auto-vram} when {@code learnUndeclared}: a
     * job that declares no memory learns it ({@link JobSpec#learningVram()}), unless its rule gives it a
     * share of a GPU, which is then its declaration.
     *
     * @param spec the job as its line (or submission) declared it
     * @param learnUndeclared whether a job that declares no memory learns it ({@code --auto-vram})
     * @return the job with the rule's attributes, and the rule's name if it gave any
     */
    public Applied apply(JobSpec spec, boolean learnUndeclared) {
        if (!learnUndeclared || spec.declared() || spec.learnVram()) {
            return apply(spec);
        }
        Applied plain = apply(spec);
        return plain.spec().share().isPresent() ? plain : apply(spec.learningVram());
    }

    /**
     * Fills in what the job did not declare from the first matching rule (or the default). Idempotent:
     * applying it to its own result changes nothing more.
     *
     * @param spec the job as its line (or submission) declared it
     * @return the job with the rule's attributes, and the rule's name if it gave any
     */
    public Applied apply(JobSpec spec) {
        Rule r = ruleFor(spec.command());
        OptionalLong vram = spec.vramMib();
        int gpus = spec.gpus();
        Optional<GpuShare> share = spec.share();
        Optional<Duration> timeout = spec.timeout();
        int retries = spec.retries();
        boolean used = false;
        int pins = spec.scheduling().gpuIds().size();
        // gpus=1 reads as no gpus at all: it is what a line without gpus= gets.
        boolean gpusOpen = share.isEmpty() && gpus == 1;
        if (r.share().isPresent()) {
            if (gpusOpen && vram.isEmpty() && !spec.learnVram()) {
                gpus = 1;
                share = r.share();
                used = true;
            }
        } else {
            // A share is the line's declaration as much as vram is.
            if (vram.isEmpty() && share.isEmpty() && r.vramMib().isPresent()) {
                vram = r.vramMib();
                used = true;
            }
            // A job pinned to fewer GPUs than the rule asks for keeps its pins' limit: the line wins.
            if (gpusOpen && r.gpus().isPresent() && r.gpus().getAsInt() != gpus && (pins == 0 || r.gpus().getAsInt() <= pins)) {
                gpus = r.gpus().getAsInt();
                used = true;
            }
        }
        if (timeout.isEmpty() && r.timeout().isPresent()) {
            timeout = r.timeout();
            used = true;
        }
        if (retries == 0 && r.retries().isPresent() && r.retries().getAsInt() != 0) {
            retries = r.retries().getAsInt();
            used = true;
        }
        if (!used) {
            return new Applied(spec, Optional.empty());
        }
        return new Applied(spec.withRequirements(vram, gpus, timeout, retries).toBuilder().share(share).build(),
                Optional.of(r.name()));
    }
}
