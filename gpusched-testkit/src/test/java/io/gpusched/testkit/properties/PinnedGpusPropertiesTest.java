package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The pin rule ({@code Scheduling.gpusByDefault}), as mgpu means pins: a line pinning N GPUs without
 * {@code gpus=} asks for all N, with {@code gpus=K} for K of them; written back and read again it is the
 * same job; and on idle GPUs the allocator gives it exactly that many, all among its pins.
 */
class PinnedGpusPropertiesTest {
    private static final int TRIES = 1000;

    /** A machine of 1 to 8 idle GPUs, some of them pinned in any order, and maybe a {@code gpus=K}. */
    private record Case(int machine, List<Integer> pins, OptionalInt gpus, boolean declared) {
        String line() {
            String ids = pins.stream().map(String::valueOf).collect(Collectors.joining(","));
            return "[" + (gpus.isPresent() ? "gpus=" + gpus.getAsInt() + " " : "") + "gpu-ids=" + ids
                    + (declared ? " vram=4G" : "") + "] python train.py";
        }
    }

    private static Gen<Case> cases() {
        return (random, size) -> {
            int machine = random.nextInt(1, 9);
            List<Integer> all = new ArrayList<>(IntStream.range(0, machine).boxed().toList());
            java.util.Collections.shuffle(all, new java.util.Random(random.nextLong()));
            List<Integer> pins = List.copyOf(all.subList(0, random.nextInt(1, machine + 1)));
            OptionalInt gpus = random.nextBoolean() ? OptionalInt.of(random.nextInt(1, pins.size() + 1)) : OptionalInt.empty();
            return new Case(machine, pins, gpus, random.nextBoolean());
        };
    }

    @Test
    void pinsWithoutGpusAreAllTheJobsGpus_andGpusKIsKOfThem() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            JobSpec spec = JobSpec.parse(c.line());
            assertEquals(c.gpus().orElse(c.pins().size()), spec.gpus(), c.line());
            assertEquals(c.pins().size(), spec.scheduling().gpusByDefault(), c.line());
            assertEquals(spec, JobSpec.parse(spec.toLine()), c.line() + " written as " + spec.toLine());
        });
    }

    @Test
    void onIdleGpusTheJobGetsThatManyGpus_allAmongItsPins() {
        Allocator allocator = new Allocator(new PlacementPolicy(512, 200, 0.10, false, Optional.empty()));
        Property.forAll(cases()).tries(TRIES).check(c -> {
            JobSpec spec = JobSpec.parse(c.line());
            List<GpuView> gpus = IntStream.range(0, c.machine()).mapToObj(i -> GpuView.empty(i, 24_000)).toList();
            Set<Integer> pins = new HashSet<>(c.pins());
            Request request = (spec.vramMib().isPresent() ? Request.declared(spec.vramMib().getAsLong(), spec.gpus())
                    : Request.undeclared(spec.gpus())).pinnedTo(pins);
            Placement p = allocator.place(request, gpus);
            assertTrue(p instanceof Placement.Placed, c.line() + ": " + p);
            List<Integer> got = ((Placement.Placed) p).gpus();
            assertEquals(spec.gpus(), got.size(), c.line() + " got " + got);
            assertTrue(pins.containsAll(got), c.line() + " got " + got);
            if (c.gpus().isEmpty()) {
                assertEquals(pins, new HashSet<>(got), "every pinned GPU: " + c.line());
            }
        });
    }
}
