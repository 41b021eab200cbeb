package io.gpusched.testkit.arbitraries;

import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * Generators for the allocator's inputs: GPUs of real and odd sizes with external use and external
 * peaks, our own jobs on them in every state the engine can report (declared, undeclared, ramping,
 * over their declaration), requests and policies. The mix is tuned so that a run sees placed,
 * blocked and infeasible outcomes in useful proportions; {@code GpuArbitrariesCoverageTest} keeps it
 * so.
 */
public final class GpuArbitraries {
    private static final long GIB = 1024;

    /** Memory sizes of common data-centre and workstation GPUs, in MiB: 8 to 141 GiB. */
    public static final List<Long> STANDARD_SIZES_MIB =
            List.of(8 * GIB, 11 * GIB, 12 * GIB, 16 * GIB, 24 * GIB, 40 * GIB, 48 * GIB, 80 * GIB, 94 * GIB, 141 * GIB);

    private GpuArbitraries() {
    }

    /**
     * @return a GPU's total memory in MiB: mostly a {@linkplain #STANDARD_SIZES_MIB standard size},
     *     sometimes an odd one (a MIG slice, a driver reserving memory) down to 1 MiB
     */
    public static Gen<Long> totalMib() {
        return Gen.<Long>weighted()
                .add(8, Gen.elements(STANDARD_SIZES_MIB))
                .add(1, Gen.longs(1, 200 * GIB))
                .add(1, Gen.elements(1L, 100L, 511L, 4_864L, 10_240L - 3, 81_559L))
                .build();
    }

    /**
     * A job of ours on a GPU of the given size, in one of its life stages.
     *
     * @param totalMib the GPU's total memory, which bounds the amounts (usually)
     * @return declared within budget, ramping (current below declared), over its declaration, or
     *     undeclared
     */
    public static Gen<Tenant> tenant(long totalMib) {
        long cap = Math.max(1, totalMib);
        return Gen.<Tenant>weighted()
                .add(3, withinDeclaration(cap))
                .add(2, ramping(cap))
                .add(2, overDeclaration(cap))
                .add(1, undeclared(cap))
                .build();
    }

    /**
     * @param cap the GPU's total memory
     * @return a declared job whose peak has stayed within its declaration
     */
    public static Gen<Tenant> withinDeclaration(long cap) {
        return (random, size) -> {
            long declared = amount(random, cap);
            long peak = random.nextLong(0, declared + 1);
            long current = random.nextLong(0, peak + 1);
            return new Tenant(key(random), OptionalLong.of(declared), current, peak);
        };
    }

    /**
     * @param cap the GPU's total memory
     * @return a declared job that has just started: little or nothing used yet
     */
    public static Gen<Tenant> ramping(long cap) {
        return (random, size) -> {
            long declared = amount(random, cap);
            long current = random.nextInt(3) == 0 ? 0 : random.nextLong(0, Math.max(1, declared / 4));
            return new Tenant(key(random), OptionalLong.of(declared), current, current);
        };
    }

    /**
     * @param cap the GPU's total memory
     * @return a declared job whose peak broke its declaration (its budget escalates)
     */
    public static Gen<Tenant> overDeclaration(long cap) {
        return (random, size) -> {
            long declared = amount(random, cap);
            long peak = declared + 1 + random.nextLong(0, Math.max(1, declared));
            long current = random.nextInt(3) == 0 ? peak : random.nextLong(0, peak + 1);
            return new Tenant(key(random), OptionalLong.of(declared), current, peak);
        };
    }

    /**
     * @param cap the GPU's total memory
     * @return an undeclared job (it holds its GPU alone)
     */
    public static Gen<Tenant> undeclared(long cap) {
        return (random, size) -> {
            long peak = random.nextLong(0, cap + 1);
            long current = random.nextLong(0, peak + 1);
            return new Tenant(key(random), OptionalLong.empty(), current, peak);
        };
    }

    /**
     * One GPU as the allocator sees it. About a third are empty (possibly with a little external
     * noise); the rest carry external use, external peaks and up to three jobs of ours. The reported
     * use is usually our jobs' current use plus external use, but now and then less than our own
     * use, as when the GPU and the per-process readings are sampled at different moments.
     *
     * @param index the GPU's index
     * @return the generator
     */
    public static Gen<GpuView> gpuView(int index) {
        return (random, size) -> {
            long total = totalMib().next(random, size);
            boolean healthy = random.nextInt(12) != 0;
            if (random.nextInt(3) == 0) {
                long noise = random.nextInt(4) == 0 ? random.nextLong(0, 400) : 0;
                return new GpuView(index, total, noise, random.nextBoolean() ? noise : 0, List.of(), healthy);
            }
            int tenantCount = random.nextInt(4);
            List<Tenant> tenants = new ArrayList<>();
            Gen<Tenant> tenantGen = random.nextInt(6) == 0 ? tenant(total) : declaredTenant(total);
            long own = 0;
            for (int i = 0; i < tenantCount; i++) {
                Tenant t = tenantGen.next(random, size);
                tenants.add(t);
                own += t.currentMib();
            }
            long externalNow = random.nextInt(3) == 0 ? 0 : amount(random, Math.max(1, total / 2));
            long externalPeaks = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> externalNow;
                default -> externalNow + amount(random, Math.max(1, total / 4));
            };
            long used = random.nextInt(10) == 0 ? random.nextLong(0, own + 1) : own + externalNow;
            return new GpuView(index, total, used, externalPeaks, tenants, healthy);
        };
    }

    /**
     * A snapshot's worth of GPUs: 1 to 16 with distinct indices, usually {@code 0..n-1} but sometimes
     * sparse (as with {@code CUDA_VISIBLE_DEVICES} or a lost GPU), and sometimes not in index order.
     *
     * @return the generator
     */
    public static Gen<List<GpuView>> gpus() {
        return (random, size) -> {
            int n = random.nextInt(5) == 0 ? random.nextInt(1, 17) : random.nextInt(1, 9);
            List<Integer> indices = new ArrayList<>();
            if (random.nextInt(4) == 0) {
                Set<Integer> sparse = new TreeSet<>();
                while (sparse.size() < n) {
                    sparse.add(random.nextInt(0, 32));
                }
                indices.addAll(sparse);
            } else {
                for (int i = 0; i < n; i++) {
                    indices.add(i);
                }
            }
            List<GpuView> views = new ArrayList<>();
            for (int index : indices) {
                views.add(gpuView(index).next(random, size));
            }
            if (random.nextInt(4) == 0) {
                Collections.shuffle(views, new java.util.Random(random.nextLong()));
            }
            return List.copyOf(views);
        };
    }

    /**
     * @return a request: usually declared (1 MiB to 160 GiB per GPU, often a whole number of GiB),
     *     sometimes undeclared; 1 to 4 GPUs, mostly 1
     */
    public static Gen<Request> request() {
        Gen<Integer> count = Gen.<Integer>weighted()
                .add(6, Gen.constant(1))
                .add(2, Gen.constant(2))
                .add(1, Gen.ints(3, 4))
                .build();
        Gen<Long> vram = Gen.<Long>weighted()
                .add(4, Gen.longs(1, 80).map(g -> g * GIB))
                .add(3, Gen.logLongs(1, 160 * GIB))
                .add(1, Gen.elements(1L, 512L, 8 * GIB - 512, 24 * GIB - 512, 80 * GIB - 512, 141 * GIB))
                .build();
        return (random, size) -> random.nextInt(4) == 0
                ? Request.undeclared(count.next(random, size))
                : Request.declared(vram.next(random, size), count.next(random, size));
    }

    /**
     * A policy for these GPUs: margin 0 to 4 GiB (often the default 512), idle threshold at least 1
     * MiB (often the default 200), spike buffer 0 to 0.5, sometimes exclusive, and sometimes a
     * {@code --gpus} subset that may also name GPUs that are not there.
     *
     * @param gpus the GPUs the policy will be applied to
     * @return the generator
     */
    public static Gen<PlacementPolicy> policy(List<GpuView> gpus) {
        Gen<Long> margin = Gen.<Long>weighted().add(3, Gen.constant(512L)).add(1, Gen.constant(0L))
                .add(2, Gen.longs(0, 4 * GIB)).build();
        Gen<Long> idle = Gen.<Long>weighted().add(3, Gen.constant(200L)).add(1, Gen.constant(1L))
                .add(2, Gen.longs(1, 2 * GIB)).build();
        Gen<Double> spike = Gen.<Double>weighted().add(3, Gen.constant(0.10)).add(1, Gen.constant(0.0))
                .add(1, Gen.constant(0.5)).add(2, Gen.ints(0, 50).map(p -> p / 100.0)).build();
        return (random, size) -> new PlacementPolicy(margin.next(random, size), idle.next(random, size),
                spike.next(random, size), random.nextInt(4) == 0, allowedSubset(random, gpus));
    }

    /** @return a policy, GPUs and a request, ready for {@link AllocationCase#place()} */
    public static Gen<AllocationCase> allocationCases() {
        return (random, size) -> {
            List<GpuView> gpus = gpus().next(random, size);
            return new AllocationCase(policy(gpus).next(random, size), gpus, request().next(random, size));
        };
    }

    /** @return only the cases whose request declares its VRAM */
    public static Gen<AllocationCase> declaredCases() {
        return allocationCases().filter(c -> c.request().vramMib().isPresent());
    }

    /** @return only the cases whose request is undeclared */
    public static Gen<AllocationCase> undeclaredCases() {
        return allocationCases().filter(c -> c.request().vramMib().isEmpty());
    }

    private static Gen<Tenant> declaredTenant(long total) {
        long cap = Math.max(1, total);
        return Gen.<Tenant>weighted().add(3, withinDeclaration(cap)).add(2, ramping(cap)).add(2, overDeclaration(cap)).build();
    }

    private static Optional<Set<Integer>> allowedSubset(RandomGenerator random, List<GpuView> gpus) {
        if (random.nextInt(5) < 3) {
            return Optional.empty();
        }
        Set<Integer> allowed = new HashSet<>();
        for (GpuView g : gpus) {
            if (random.nextInt(3) != 0) {
                allowed.add(g.index());
            }
        }
        if (random.nextInt(4) == 0) {
            allowed.add(random.nextInt(32, 64));
        }
        return Optional.of(allowed);
    }

    /** Per-job amounts: a quarter of a GPU is typical, a whole GPU possible, small ones common. */
    private static long amount(RandomGenerator random, long cap) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextLong(1, cap + 1);
            case 1 -> random.nextLong(1, Math.max(2, cap / 8 + 1));
            default -> random.nextLong(1, Math.max(2, cap / 3 + 1));
        };
    }

    private static String key(RandomGenerator random) {
        return String.format("%012x#%d", random.nextLong(0, 1L << 48), random.nextInt(3));
    }
}
