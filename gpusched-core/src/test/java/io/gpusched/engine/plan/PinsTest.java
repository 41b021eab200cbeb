package io.gpusched.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** gpu-ids read against the machine's GPUs. */
class PinsTest {
    private static final GpuSnapshot TWO = new GpuSnapshot(List.of(
            new GpuStat(0, Optional.of("GPU-aaaa-0000"), "A", Optional.empty(), 24000, 0, OptionalInt.empty(), true),
            new GpuStat(1, Optional.of("GPU-bbbb-1111"), "B", Optional.empty(), 24000, 0, OptionalInt.empty(), true)),
            List.of());

    @Test
    void uuidsAreLookedUpAndIndicesTakenAsWritten() {
        assertEquals(new Pins.Resolved(Set.of(1, 7), Optional.empty()), Pins.resolve(List.of("GPU-bbbb-1111", "7"), TWO));
    }

    @Test
    void aUuidNoGpuHasStandsForTheLostGpusWhoseUuidWasNeverRead_elseTheJobIsInfeasible() {
        GpuSnapshot oneLost = new GpuSnapshot(List.of(TWO.gpus().get(0),
                new GpuStat(1, Optional.empty(), "unknown NVIDIA GPU", Optional.empty(), 0, 0, OptionalInt.empty(), false)),
                List.of());
        assertEquals(new Pins.Resolved(Set.of(1), Optional.empty()), Pins.resolve(List.of("GPU-cccc-2222"), oneLost));
        assertEquals(new Pins.Resolved(Set.of(0), Optional.empty()), Pins.resolve(List.of("GPU-aaaa-0000"), oneLost));
    }

    @Test
    void aUuidThisMachineLacksMakesTheJobInfeasibleWithTheReason() {
        assertEquals(Optional.of("gpu-ids names GPU-cccc-2222, which is not a GPU of this machine"),
                Pins.resolve(List.of("0", "GPU-cccc-2222"), TWO).unknown());
    }
}
