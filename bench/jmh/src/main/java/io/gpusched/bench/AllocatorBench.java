package io.gpusched.bench;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** One placement decision on 8 GPUs of 80 GiB, each shared by 64 of our jobs (512 tenants). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AllocatorBench {
    private final Allocator allocator = new Allocator(PlacementPolicy.defaults());
    private List<GpuView> gpus;

    @Setup
    public void setup() {
        gpus = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            List<Tenant> tenants = new ArrayList<>();
            long used = 0;
            for (int t = 0; t < 64; t++) {
                long declared = 1000 + 10L * g; // 64 x ~1 GiB: 8 different headrooms for best fit
                long current = 700 + (t % 7) * 40;
                tenants.add(new Tenant("k" + g + "_" + t, OptionalLong.of(declared), current, current + 50));
                used += current;
            }
            gpus.add(new GpuView(g, 81920, used, 0, tenants, true));
        }
    }

    /** A 4 GiB job: fits on several GPUs, best fit picks one. */
    @Benchmark
    public Placement placeFits() {
        return allocator.place(Request.declared(4096, 1), gpus);
    }

    /** A 40 GiB job on 2 GPUs: blocked everywhere, the allocator builds the reason. */
    @Benchmark
    public Placement placeBlocked() {
        return allocator.place(Request.declared(40960, 2), gpus);
    }
}
