package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.GpuShare;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Requirements;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Requirement rules' precedence ({@link Requirements#apply}), over 1,000 generated jobs and rule lists each. */
class RequirementsPropertiesTest {
    private static final int TRIES = 1000;

    /** A job and rules some of which match its command: substrings of it, quoted or as regexes, and strangers. */
    private record Case(JobSpec spec, Requirements rules) {
    }

    private static Gen<Case> cases() {
        Gen<JobSpec> specs = JobSpecArbitraries.jobSpecs();
        return (random, size) -> {
            JobSpec spec = specs.next(random, size);
            String cmd = spec.command();
            List<Requirements.Rule> rules = new ArrayList<>();
            for (int i = random.nextInt(5); i > 0; i--) {
                int from = random.nextInt(cmd.length());
                String piece = cmd.substring(from, from + 1 + random.nextInt(Math.min(12, cmd.length() - from)));
                String pattern;
                boolean regex = random.nextBoolean();
                switch (random.nextInt(3)) {
                    case 0 -> pattern = regex ? Pattern.quote(piece) : piece;
                    case 1 -> pattern = regex ? "^" + Pattern.quote(cmd.substring(0, 1)) : cmd.substring(0, 1);
                    default -> pattern = regex ? "no-such-\\d+" : "no such text \u0001";
                }
                rules.add(rule("r" + rules.size(), pattern, regex, random));
            }
            Requirements.Rule fallback = random.nextBoolean() ? rule("default", "", false, random) : Requirements.Rule.NONE;
            return new Case(spec, new Requirements(rules, fallback));
        };
    }

    private static Requirements.Rule rule(String name, String pattern, boolean regex, java.util.random.RandomGenerator random) {
        Optional<Duration> timeout = random.nextBoolean() ? Optional.of(Duration.ofSeconds(1 + random.nextInt(100_000)))
                : Optional.empty();
        OptionalInt retries = random.nextBoolean() ? OptionalInt.of(random.nextInt(4)) : OptionalInt.empty();
        if (random.nextInt(4) == 0) {
            // A share of one GPU ("gpus": 0.5): the rule's memory and GPU count at once.
            return new Requirements.Rule(name, pattern, regex, OptionalLong.empty(), OptionalInt.empty(), timeout, retries,
                    Optional.of(new GpuShare(BigDecimal.valueOf(1 + random.nextInt(99), 2))));
        }
        return new Requirements.Rule(name, pattern, regex,
                random.nextBoolean() ? OptionalLong.of(1 + random.nextInt(80_000)) : OptionalLong.empty(),
                random.nextBoolean() ? OptionalInt.of(1 + random.nextInt(8)) : OptionalInt.empty(), timeout, retries);
    }

    @Test
    void explicitAttributesAlwaysWin() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            JobSpec in = c.spec();
            JobSpec out = c.rules().apply(in).spec();
            if (in.vramMib().isPresent()) {
                assertEquals(in.vramMib(), out.vramMib());
            }
            // A share declares the job's memory and its one GPU; no rule replaces it.
            if (in.share().isPresent() || in.vramMib().isPresent() || in.learnVram() || in.gpus() != 1) {
                assertEquals(in.share(), out.share());
            }
            if (in.share().isPresent()) {
                assertEquals(OptionalLong.empty(), out.vramMib());
                assertEquals(1, out.gpus());
            }
            // A learning line still learns: the rule's figure is only what it asks for until a run teaches.
            assertEquals(in.learnVram(), out.learnVram());
            if (in.gpus() != 1) {
                assertEquals(in.gpus(), out.gpus());
            }
            if (in.timeout().isPresent()) {
                assertEquals(in.timeout(), out.timeout());
            }
            if (in.retries() != 0) {
                assertEquals(in.retries(), out.retries());
            }
            // What no rule can set is the line's, always.
            assertEquals(in.withKey(out.key()).command(), out.command());
            assertEquals(in.scheduling(), out.scheduling());
            assertEquals(in.environment(), out.environment());
            assertEquals(in.cancel(), out.cancel());
            assertEquals(in.key(), out.key());
        });
    }

    @Test
    void theFirstMatchingRuleFillsWhatTheLineLeftOpen() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            JobSpec in = c.spec();
            Optional<Requirements.Rule> first = c.rules().rules().stream().filter(r -> r.matches(in.command())).findFirst();
            Requirements.Rule expected = first.orElse(c.rules().fallback());
            Requirements.Applied applied = c.rules().apply(in);
            JobSpec out = applied.spec();
            boolean gpusOpen = in.share().isEmpty() && in.gpus() == 1;
            if (in.vramMib().isEmpty() && in.share().isEmpty()) {
                assertEquals(expected.vramMib(), out.vramMib());
            }
            if (expected.share().isPresent()) {
                boolean takesShare = gpusOpen && in.vramMib().isEmpty() && !in.learnVram();
                assertEquals(takesShare ? expected.share() : in.share(), out.share());
            }
            if (in.timeout().isEmpty()) {
                assertEquals(expected.timeout(), out.timeout());
            }
            if (in.retries() == 0) {
                assertEquals(expected.retries().orElse(0), out.retries());
            }
            if (gpusOpen && expected.gpus().isPresent()) {
                boolean fitsPins = !in.scheduling().pinned() || expected.gpus().getAsInt() <= in.scheduling().gpuIds().size();
                assertEquals(fitsPins ? expected.gpus().getAsInt() : 1, out.gpus());
            }
            if (!out.equals(in)) {
                assertEquals(Optional.of(expected.name()), applied.rule(), "the rule that gave something is named");
            } else {
                assertEquals(Optional.empty(), applied.rule());
            }
        });
    }

    @Test
    void aCommandNoRuleMatchesGetsTheDefault() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            // Keep only the rules that miss this command: the default must decide.
            List<Requirements.Rule> missing = c.rules().rules().stream().filter(r -> !r.matches(c.spec().command())).toList();
            Requirements rules = new Requirements(missing, c.rules().fallback());
            JobSpec in = c.spec();
            JobSpec out = rules.apply(in).spec();
            Requirements.Rule d = rules.fallback();
            assertEquals(in.vramMib().isPresent() || in.share().isPresent() ? in.vramMib() : d.vramMib(), out.vramMib());
            assertEquals(in.timeout().isPresent() ? in.timeout() : d.timeout(), out.timeout());
            assertTrue(rules.ruleFor(in.command()) == d);
        });
    }

    @Test
    void applyingRulesIsIdempotent() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            JobSpec once = c.rules().apply(c.spec()).spec();
            assertEquals(once, c.rules().apply(once).spec());
        });
    }
}
