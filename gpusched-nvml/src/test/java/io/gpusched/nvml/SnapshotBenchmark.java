package io.gpusched.nvml;

import io.gpusched.gpu.GpuSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures what one snapshot of 8 GPUs (2 processes each) costs against the fake driver, so the cost
 * of JNA and of the backend's own work can be watched. It only prints; timings are never asserted.
 * Off by default; run it with:
 *
 * <pre>
 * mvn -B -q -pl gpusched-nvml -am verify -Dgpusched.bench=true -Dtest=SnapshotBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Two figures are printed: with the fake's state marked {@code static}, the time is JNA plus the
 * backend (the fake's own work is a few struct copies); without it, the fake also re-parses its state
 * file at every {@code nvmlDeviceGetCount_v2}, which a real driver does not do.
 */
@EnabledIfSystemProperty(named = "gpusched.bench", matches = "true")
class SnapshotBenchmark {
    private static final int WARMUP = 20_000;
    private static final int MEASURED = 20_000;

    @TempDir
    Path dir;

    @Test
    void medianSnapshotOfEightGpus() {
        List<String> machine = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            machine.add(String.format(Locale.ROOT, "gpu uuid=GPU-%d name=NVIDIA_H100_80GB_HBM3 bus=00000000:%02X:00.0"
                    + " total_mib=81559 used_mib=%d util=%d", g, 0x10 + g, 1000 * g, 10 * g));
            machine.add("proc gpu=" + g + " pid=" + (1000 + 2 * g) + " used_mib=400");
            machine.add("proc gpu=" + g + " pid=" + (1001 + 2 * g) + " used_mib=500");
        }
        List<String> staticMachine = new ArrayList<>(machine);
        staticMachine.add("static");
        report("JNA + backend (fake state static)", staticMachine);
        report("including the fake re-reading its state file", machine);
    }

    private void report(String what, List<String> machine) {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir).state(machine.toArray(String[]::new));
        try (NvmlBackend backend = fake.open()) {
            GpuSnapshot check = backend.snapshot();
            if (check.gpus().size() != 8 || check.processes().size() != 16) {
                throw new AssertionError("benchmark machine not as intended: " + check);
            }
            for (int i = 0; i < WARMUP; i++) {
                backend.snapshot();
            }
            long[] nanos = new long[MEASURED];
            for (int i = 0; i < MEASURED; i++) {
                long start = System.nanoTime();
                backend.snapshot();
                nanos[i] = System.nanoTime() - start;
            }
            Arrays.sort(nanos);
            System.out.printf(Locale.ROOT, "snapshot of 8 GPUs / 16 processes, %s: median %.1f us, p90 %.1f us, p99 %.1f us (%d runs)%n",
                    what, nanos[MEASURED / 2] / 1e3, nanos[MEASURED * 9 / 10] / 1e3, nanos[MEASURED * 99 / 100] / 1e3, MEASURED);
        }
    }
}
