package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Scheduling;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@link SlurmMapping} over generated jobs and clusters, each rule checked against its own arithmetic. */
class SlurmMappingPropertiesTest {
    private static final int TRIES = 2000;

    /** A job, a shard size and a shard count, as a cluster might have them. */
    private record Case(JobSpec spec, long shardMib, int gpuShards) {
        SlurmRequest map() {
            return new SlurmMapping(shardMib, gpuShards).map(spec, "jobs.txt");
        }
    }

    private static Gen<Case> cases() {
        Gen<Long> shardMib = Gen.<Long>weighted().add(3, Gen.elements(1000L, 1024L, 10_240L, 20_480L))
                .add(1, Gen.logLongs(1, 1L << 20)).build();
        Gen<Integer> gpuShards = Gen.<Integer>weighted().add(3, Gen.elements(1, 2, 4, 7, 8)).add(1, Gen.ints(1, 128)).build();
        return (random, size) -> new Case(JobSpecArbitraries.jobSpecs().next(random, size),
                shardMib.next(random, size), gpuShards.next(random, size));
    }

    /** What Slurm cannot express, found independently of the mapping's own checks. */
    private static boolean inexpressible(JobSpec s) {
        Scheduling sc = s.scheduling();
        return !sc.gpuIds().isEmpty() || s.environment().tty() || sc.preemptible()
                || sc.onTimeout() == Scheduling.OnTimeout.REQUEUE || sc.priority() != 0 || !sc.after().isEmpty()
                || s.environment().conda().isPresent() || s.environment().setup().isPresent();
    }

    private static long shardsFor(long vram, long shardMib) {
        return BigInteger.valueOf(vram).add(BigInteger.valueOf(shardMib - 1)).divide(BigInteger.valueOf(shardMib))
                .longValueExact();
    }

    @Test
    void aJobIsRefusedExactlyWhenSlurmCannotExpressItOrItsVramOverflowsOneGpusShards_inOneLineNamingFileAndLine() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            boolean tooBig = c.spec().vramMib().isPresent()
                    && shardsFor(c.spec().vramMib().getAsLong(), c.shardMib()) > c.gpuShards();
            SlurmRequest r = c.map();
            if (inexpressible(c.spec()) || tooBig) {
                SlurmRequest.Refused refused = assertInstanceOf(SlurmRequest.Refused.class, r, c.toString());
                assertTrue(refused.message().startsWith("jobs.txt:" + c.spec().line() + ": "), refused.message());
                assertFalse(refused.message().contains("\n"));
                assertTrue(refused.message().contains("; "), "says the fix: " + refused.message());
            } else {
                assertInstanceOf(SlurmRequest.Mapped.class, r, c.toString());
            }
        });
    }

    @Test
    void vramOnOneGpuAsksForTheFewestShardsThatHoldIt_andVramOnSeveralGpusAsksForWholeGpus() {
        Property.forAll(cases().filter(c -> c.spec().vramMib().isPresent())).tries(TRIES).check(c -> {
            if (!(c.map() instanceof SlurmRequest.Mapped m)) {
                return;
            }
            long vram = c.spec().vramMib().getAsLong();
            if (c.spec().gpus() > 1) {
                assertEquals("gpu:" + c.spec().gpus(), m.gres());
            } else {
                long k = m.shards();
                assertTrue(k >= 1 && k <= c.gpuShards(), c + " → " + m);
                assertTrue(BigInteger.valueOf(k).multiply(BigInteger.valueOf(c.shardMib()))
                        .compareTo(BigInteger.valueOf(vram)) >= 0, "holds it: " + c + " → " + m);
                assertTrue((k - 1) * c.shardMib() < vram, "the fewest: " + c + " → " + m);
            }
            assertEquals(OptionalLong.of(vram), m.declaredMib(), "the verdict judges the declaration, not the grant");
        });
    }

    @Test
    void aShareAsksForThatShareOfOneGpusShardsRoundedUp_andIsJudgedAgainstWhatThoseShardsHold() {
        Gen<Case> shares = (random, size) -> {
            Case c = cases().next(random, size);
            JobSpec s = c.spec();
            JobSpec shared = JobSpec.builder(s.command()).timeout(s.timeout()).retries(s.retries()).cancel(s.cancel())
                    .line(s.line()).key(s.key()).share(java.util.Optional.of(JobSpecArbitraries.gpuShares().next(random, size)))
                    .build();
            return new Case(shared, c.shardMib(), c.gpuShards());
        };
        Property.forAll(shares).tries(TRIES).check(c -> {
            SlurmRequest.Mapped m = assertInstanceOf(SlurmRequest.Mapped.class, c.map());
            BigDecimal exact = c.spec().share().get().fraction().multiply(BigDecimal.valueOf(c.gpuShards()));
            long k = m.shards();
            assertTrue(k >= 1 && k <= c.gpuShards(), c + " → " + m);
            assertTrue(BigDecimal.valueOf(k).compareTo(exact) >= 0, "at least the share: " + c + " → " + m);
            assertTrue(k == 1 || BigDecimal.valueOf(k - 1).compareTo(exact) < 0, "rounded up, no more: " + c);
            assertEquals(OptionalLong.of(k * c.shardMib()), m.declaredMib());
        });
    }

    @Test
    void anUndeclaredJobAsksForWholeGpus_asManyAsItsGpus() {
        Property.forAll(cases().filter(c -> !c.spec().declared())).tries(TRIES).check(c -> {
            if (c.map() instanceof SlurmRequest.Mapped m) {
                assertEquals("gpu:" + c.spec().gpus(), m.gres());
                assertEquals(0, m.shards());
                assertTrue(m.declaredMib().isEmpty());
            }
        });
    }

    @Test
    void aTimeoutBecomesTheFewestWholeMinutesThatCoverIt() {
        Property.forAll(cases().filter(c -> c.spec().timeout().isPresent())).tries(TRIES).check(c -> {
            if (!(c.map() instanceof SlurmRequest.Mapped m)) {
                return;
            }
            Duration t = c.spec().timeout().get();
            long minutes = m.timeMinutes().getAsLong();
            assertTrue(Duration.ofMinutes(minutes).compareTo(t) >= 0, "covers it: " + t + " → " + minutes);
            assertTrue(minutes == 1 || Duration.ofMinutes(minutes - 1).compareTo(t) < 0, "the fewest: " + t);
            assertTrue(m.sbatchOptions().contains("--time=" + minutes), m.toString());
        });
    }

    @Test
    void withoutATimeoutNoTimeIsGiven_andTheGresIsAlwaysTheFirstOption() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            if (c.map() instanceof SlurmRequest.Mapped m) {
                assertEquals("--gres=" + m.gres(), m.sbatchOptions().get(0));
                assertEquals(c.spec().timeout().isPresent(), m.sbatchOptions().stream().anyMatch(o -> o.startsWith("--time=")));
                assertEquals(1 + (c.spec().timeout().isPresent() ? 1 : 0) + (c.spec().comment().isPresent() ? 1 : 0),
                        m.sbatchOptions().size(), m.sbatchOptions().toString());
            }
        });
    }

    @Test
    void examples() {
        SlurmMapping m = new SlurmMapping(10_240, 8);
        assertEquals(List.of("--gres=shard:2"), ((SlurmRequest.Mapped) m.map(JobSpec.parse("[vram=20G] x"), "f")).sbatchOptions());
        assertEquals(List.of("--gres=shard:1", "--time=2"),
                ((SlurmRequest.Mapped) m.map(JobSpec.parse("[vram=1 timeout=61s] x"), "f")).sbatchOptions());
        assertEquals(List.of("--gres=gpu:1"), ((SlurmRequest.Mapped) m.map(JobSpec.parse("x"), "f")).sbatchOptions());
        assertEquals(List.of("--gres=shard:4"), ((SlurmRequest.Mapped) m.map(JobSpec.parse("[gpus=0.5] x"), "f")).sbatchOptions());
        assertEquals(List.of("--gres=gpu:2"), ((SlurmRequest.Mapped) m.map(JobSpec.parse("[vram=8G gpus=2] x"), "f")).sbatchOptions());
        assertEquals("f:1: vram=90000 MiB needs 9 shards of 10240 MiB but one GPU has 8; lower vram, or give the cluster's"
                + " --shard-mib and --gpu-shards", ((SlurmRequest.Refused) m.map(JobSpec.parse("[vram=90000] x"), "f")).message());
        assertEquals("f:1: tty cannot be honoured on Slurm (a batch job has no terminal); remove tty from the line, or run"
                + " the file without --executor slurm", ((SlurmRequest.Refused) m.map(JobSpec.parse("[tty] x"), "f")).message());
    }
}
