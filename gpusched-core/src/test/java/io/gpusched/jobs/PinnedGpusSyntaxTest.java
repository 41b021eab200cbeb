package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The one rule for pinned GPUs ({@link Scheduling#gpusByDefault()}), as mgpu's {@code --gpu-ids} means
 * them: pins without {@code gpus=} are all the job's GPUs; {@code gpus=K} picks K of them.
 */
class PinnedGpusSyntaxTest {

    private static JobSpec parse(String line) {
        return JobSpec.parse(line);
    }

    @Test
    void pinningGpusWithoutGpusGivesTheJobEveryPinnedGpu() {
        assertEquals(2, parse("[gpu-ids=0,1] torchrun --nproc_per_node=2 train.py").gpus());
        assertEquals(4, parse("[gpu-ids=0-3] x").gpus());
        assertEquals(2, parse("[gpu-ids=GPU-8f2c,3] x").gpus());
        assertEquals(1, parse("[gpu-ids=2] x").gpus());
        assertEquals(1, parse("x").gpus());
    }

    @Test
    void gpusBelowThePinsPicksThatManyOfThem_andAShareIsOneOfThem() {
        JobSpec one = parse("[gpus=1 gpu-ids=0-3] x");
        assertEquals(1, one.gpus());
        assertEquals(List.of("0", "1", "2", "3"), one.scheduling().gpuIds());
        assertEquals(2, parse("[gpu-ids=0-3 gpus=2] x").gpus());
        JobSpec share = parse("[gpus=0.5 gpu-ids=1,3] x");
        assertEquals(1, share.gpus());
        assertEquals("0.5", share.share().orElseThrow().toString());
    }

    @Test
    void toLineWritesGpusOnlyWhereItDiffersFromThePins_andReadsBackTheSameJob() {
        for (String line : List.of("[gpu-ids=0,1] x", "[gpus=1 gpu-ids=0,1] x", "[gpus=2 gpu-ids=0-2] x",
                "[gpus=0.5 gpu-ids=1,3] x", "[gpu-ids=2] x", "[gpus=3] x")) {
            JobSpec spec = parse(line);
            assertEquals(line, spec.toLine());
            assertEquals(spec, parse(spec.toLine()));
        }
        assertEquals("[gpu-ids=0,1] x", parse("[gpus=2 gpu-ids=0,1] x").toLine(), "gpus equal to the pins is the default");
    }

    @Test
    void theJavaBuilderFollowsTheSameRule() {
        Scheduling pins = new Scheduling(0, List.of("0", "1", "2"), false, Scheduling.OnTimeout.FAIL, Optional.empty(),
                List.of());
        assertEquals(3, JobSpec.builder("x").scheduling(pins).build().gpus());
        assertEquals(1, JobSpec.builder("x").scheduling(pins).gpus(1).build().gpus());
        assertEquals(1, JobSpec.builder("x").build().gpus());
        // A job changed later keeps the count it has.
        JobSpec one = JobSpec.builder("x").scheduling(pins).gpus(1).build();
        assertEquals(1, one.toBuilder().retries(2).build().gpus());
        assertEquals(3, pins.gpusByDefault());
        assertEquals(1, Scheduling.DEFAULT.gpusByDefault());
    }

    @Test
    void moreGpusThanPinsIsStillAnErrorNamingTheFix() {
        JobSpecException e = org.junit.jupiter.api.Assertions.assertThrows(JobSpecException.class,
                () -> JobsFileParser.parseLine("[gpus=3 gpu-ids=0,1] x", "jobs.txt", 4));
        assertEquals("jobs.txt:4: gpus=3 but gpu-ids lists 2 GPUs; ask for at most 2 or list more GPUs in gpu-ids",
                e.getMessage());
    }

    @Test
    void aRuleLeavesAJobPinnedToSeveralGpusAtAllOfThem_butFillsAPinnedGpus1() {
        Requirements.Rule one = new Requirements.Rule("one", "--llm s", false, java.util.OptionalLong.empty(),
                java.util.OptionalInt.of(1), Optional.empty(), java.util.OptionalInt.empty());
        Requirements.Rule two = new Requirements.Rule("two", "--llm t", false, java.util.OptionalLong.empty(),
                java.util.OptionalInt.of(2), Optional.empty(), java.util.OptionalInt.empty());
        Requirements r = new Requirements(List.of(one, two), Requirements.Rule.NONE);
        assertEquals(3, r.apply(parse("[gpu-ids=0-2] x --llm s")).spec().gpus());
        assertEquals(2, r.apply(parse("[gpus=1 gpu-ids=0-2] x --llm t")).spec().gpus());
    }
}
