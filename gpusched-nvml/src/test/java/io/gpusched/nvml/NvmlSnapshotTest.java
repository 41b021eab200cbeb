package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What one snapshot contains, read from the modern fake driver. */
class NvmlSnapshotTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private NvmlBackend backend;

    @AfterEach
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    private GpuSnapshot snapshotOf(String... state) {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir).state(state);
        backend = fake.open();
        return backend.snapshot();
    }

    @Test
    void everyGpuIsReportedWithIdentityMemoryAndUtilisation() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS);
        assertEquals(List.of(
                new GpuStat(0, Optional.of("GPU-aaaa"), "NVIDIA H100 80GB HBM3", Optional.of("00000000:17:00.0"),
                        81559, 2048, OptionalInt.of(37), true),
                new GpuStat(1, Optional.of("GPU-bbbb"), "NVIDIA H100 80GB HBM3", Optional.of("00000000:65:00.0"),
                        81559, 0, OptionalInt.of(0), true)), s.gpus());
        assertEquals(List.of(), s.warnings());
    }

    @Test
    void processesAreReportedWithPidAndMemory() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS);
        assertEquals(List.of(new GpuProcess(0, 4242, 1200), new GpuProcess(0, 4343, 800)), s.processes());
    }

    @Test
    void describeNamesTheDriverVersionAndGpuCount() {
        snapshotOf(FakeNvml.TWO_GPUS);
        assertEquals("nvml (driver 550.54.15, 2 GPUs)", backend.describe());
    }

    @Test
    void totalsRoundDownAndUsesRoundUpSoFreeMemoryIsNeverOverstated() {
        GpuSnapshot s = snapshotOf(
                "gpu uuid=GPU-r name=X total_bytes=" + (1000 * MIB + MIB - 1) + " used_bytes=" + (10 * MIB + 1),
                "proc gpu=0 pid=7 used_bytes=" + (5 * MIB + 1));
        GpuStat g = s.gpus().get(0);
        assertEquals(1000, g.totalMib());
        assertEquals(11, g.usedMib());
        assertEquals(6, s.processes().get(0).usedMib());
    }

    @Test
    void usedMemoryIsCappedAtTotalAfterRounding() {
        GpuSnapshot s = snapshotOf("gpu uuid=GPU-c name=X total_bytes=" + (100 * MIB + 5) + " used_bytes=" + (100 * MIB + 5));
        assertEquals(100, s.gpus().get(0).usedMib());
        assertEquals(100, s.gpus().get(0).totalMib());
    }

    @Test
    void unsupportedUtilisationIsEmpty() {
        GpuSnapshot s = snapshotOf("gpu uuid=GPU-u name=X total_mib=100 used_mib=1 util=na");
        assertEquals(OptionalInt.empty(), s.gpus().get(0).utilPercent());
        assertTrue(s.gpus().get(0).healthy());
    }

    @Test
    void processWithUnknownMemoryReportsZeroNotAHugeNumber() {
        GpuSnapshot s = snapshotOf(
                "gpu uuid=GPU-n name=X total_mib=1000 used_mib=500",
                "proc gpu=0 pid=11 used=na",
                "proc gpu=0 pid=12 used_mib=300");
        assertEquals(List.of(new GpuProcess(0, 11, 0), new GpuProcess(0, 12, 300)), s.processes());
    }

    @Test
    void moreProcessesThanTheFirstBufferHoldsAreAllRead() {
        String[] state = new String[101];
        state[0] = "gpu uuid=GPU-m name=X total_mib=100000 used_mib=10000";
        for (int i = 1; i <= 100; i++) {
            state[i] = "proc gpu=0 pid=" + (1000 + i) + " used_mib=" + i;
        }
        GpuSnapshot s = snapshotOf(state);
        assertEquals(100, s.processes().size());
        assertEquals(new GpuProcess(0, 1100, 100), s.processes().get(99));
    }

    @Test
    void migInstancesAreSchedulableDevicesWithTheirOwnUuidAndMemory() {
        GpuSnapshot s = snapshotOf(
                "gpu uuid=GPU-plain name=NVIDIA_A100 bus=00000000:07:00.0 total_mib=40960 used_mib=0 util=5",
                "gpu uuid=GPU-mig name=NVIDIA_A100 bus=00000000:0F:00.0 total_mib=40960 used_mib=0 mig=1",
                "mig gpu=1 idx=0 uuid=MIG-one name=NVIDIA_A100_MIG_3g.20gb total_mib=19968 used_mib=13 gi=1 ci=0",
                "mig gpu=1 idx=2 uuid=MIG-two name=NVIDIA_A100_MIG_1g.5gb total_mib=4864 used_mib=7 gi=5 ci=0",
                "gpu uuid=GPU-last name=NVIDIA_A100 bus=00000000:47:00.0 total_mib=40960 used_mib=0 util=9",
                "proc gpu=1 mig=2 pid=900 used_mib=4000");
        assertEquals(List.of(
                new GpuStat(0, Optional.of("GPU-plain"), "NVIDIA A100", Optional.of("00000000:07:00.0"), 40960, 0, OptionalInt.of(5), true),
                new GpuStat(1, Optional.of("MIG-one"), "NVIDIA A100 MIG 3g.20gb", Optional.of("00000000:0F:00.0"), 19968, 13, OptionalInt.empty(), true),
                new GpuStat(2, Optional.of("MIG-two"), "NVIDIA A100 MIG 1g.5gb", Optional.of("00000000:0F:00.0"), 4864, 7, OptionalInt.empty(), true),
                new GpuStat(3, Optional.of("GPU-last"), "NVIDIA A100", Optional.of("00000000:47:00.0"), 40960, 0, OptionalInt.of(9), true)),
                s.gpus());
        assertEquals(List.of(new GpuProcess(2, 900, 4000)), s.processes());
    }

    @Test
    void migGpuWithoutInstancesIsLeftOutWithAWarning() {
        GpuSnapshot s = snapshotOf(
                "gpu uuid=GPU-empty name=NVIDIA_A100 total_mib=40960 used_mib=0 mig=1",
                "gpu uuid=GPU-b name=NVIDIA_A100 total_mib=40960 used_mib=0");
        assertEquals(List.of("GPU-b"), s.gpus().stream().map(g -> g.uuid().orElseThrow()).toList());
        assertEquals(0, s.gpus().get(0).index());
        assertTrue(s.warnings().get(0).contains("GPU-empty is in MIG mode but has no MIG instances"), s.warnings().toString());
    }

    @Test
    void lostGpuIsReportedUnhealthyAndOthersKeepWorking() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        backend = fake.open();
        GpuStat before = backend.snapshot().gpus().get(0);
        fake.state(FakeNvml.TWO_GPUS.replace("util=37", "util=37 lost=1"));
        GpuSnapshot s = backend.snapshot();
        GpuStat lost = s.gpus().get(0);
        assertFalse(lost.healthy());
        assertEquals(before.uuid(), lost.uuid(), "a lost GPU keeps the identity it was last seen with");
        assertEquals(lost.totalMib(), lost.usedMib(), "nothing on a lost GPU counts as free");
        assertTrue(s.gpus().get(1).healthy());
        assertEquals(81559, s.gpus().get(1).totalMib());
        assertTrue(s.processes().isEmpty());
        assertTrue(s.warnings().get(0).contains("GPU 0 is lost"), s.warnings().toString());
    }

    @Test
    void aLostGpuKeepsItsOwnIdentityWhenMigInstancesBeforeItAreDestroyed_notThatOfTheDeviceAtItsNewIndex() {
        String mig = "gpu uuid=GPU-mig name=NVIDIA_A100 bus=00000000:0F:00.0 total_mib=40960 used_mib=0 mig=1";
        String one = "mig gpu=0 idx=0 uuid=MIG-one name=NVIDIA_A100_MIG_3g.20gb total_mib=19968 used_mib=0 gi=1 ci=0";
        String two = "mig gpu=0 idx=1 uuid=MIG-two name=NVIDIA_A100_MIG_1g.5gb total_mib=4864 used_mib=0 gi=5 ci=0";
        String last = "gpu uuid=GPU-last name=NVIDIA_A100 bus=00000000:47:00.0 total_mib=40960 used_mib=0 util=9";
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir).state(mig, one, two, last);
        backend = fake.open();
        assertEquals(Optional.of("GPU-last"), backend.snapshot().gpus().get(2).uuid());
        fake.state(mig, one, two, last + " lost=1");
        assertEquals(Optional.of("GPU-last"), backend.snapshot().gpus().get(2).uuid(), "lost at gpu 2");
        // An admin destroys MIG-two while GPU-last stays lost: it is listed at gpu 1 now, which MIG-two had.
        fake.state(mig, one, last + " lost=1");
        GpuStat lost = backend.snapshot().gpus().get(1);
        assertEquals(new GpuStat(1, Optional.of("GPU-last"), "NVIDIA A100", Optional.of("00000000:47:00.0"), 40960, 40960,
                OptionalInt.empty(), false), lost, "not MIG-two's UUID and 4864 MiB");
    }

    @Test
    void gpuLostBeforeItWasEverSeenIsStillReportedUnhealthy() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetHandleByIndex_v2 gpu=0 rc=15");
        assertEquals(2, s.gpus().size());
        assertFalse(s.gpus().get(0).healthy());
        assertEquals(0, s.gpus().get(0).index());
        assertTrue(s.gpus().get(1).healthy());
    }

    @Test
    void deviceWithoutPermissionIsSkippedWithAWarningAndOthersKeepTheirIndex() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetHandleByIndex_v2 gpu=0 rc=4");
        assertEquals(1, s.gpus().size());
        assertEquals(1, s.gpus().get(0).index());
        assertEquals(Optional.of("GPU-bbbb"), s.gpus().get(0).uuid());
        assertTrue(s.processes().isEmpty());
        assertEquals(1, s.warnings().size());
        assertTrue(s.warnings().get(0).contains("no permission"), s.warnings().toString());
    }

    @Test
    void permissionRefusedForOneQueryAlsoSkipsTheDevice() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetMemoryInfo gpu=1 rc=4");
        assertEquals(List.of(0), s.gpus().stream().map(GpuStat::index).toList());
        assertTrue(s.warnings().get(0).contains("GPU 1 skipped"), s.warnings().toString());
    }

    @Test
    void unexpectedDeviceErrorMakesOnlyThatGpuUnhealthy() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetMemoryInfo gpu=1 rc=999");
        assertTrue(s.gpus().get(0).healthy());
        assertFalse(s.gpus().get(1).healthy());
        assertTrue(s.warnings().get(0).contains("nvmlDeviceGetMemoryInfo"), s.warnings().toString());
    }

    @Test
    void unlistableProcessesKeepTheGpuWithAWarning() {
        GpuSnapshot s = snapshotOf(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetComputeRunningProcesses_v3 gpu=0 rc=3");
        assertTrue(s.gpus().get(0).healthy());
        assertTrue(s.processes().isEmpty());
        assertTrue(s.warnings().get(0).contains("cannot list the processes on GPU 0"), s.warnings().toString());
    }

    @Test
    void changesToTheMachineAreSeenByTheNextSnapshot() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        backend = fake.open();
        assertEquals(2, backend.snapshot().processes().size());
        fake.state(FakeNvml.TWO_GPUS, "proc gpu=1 pid=5555 used_mib=100");
        assertTrue(backend.snapshot().processes().contains(new GpuProcess(1, 5555, 100)));
    }

    @Test
    void zeroGpusIsAnEmptySnapshotNotAnError() {
        GpuSnapshot s = snapshotOf("driver 550.54.15");
        assertTrue(s.gpus().isEmpty());
        assertEquals("nvml (driver 550.54.15, 0 GPUs)", backend.describe());
    }

    @Test
    void anIdleGpuWhoseDriverKeepsAReserve_readsNoMemoryInUse_andOffersWhatIsLeftAsItsSize() {
        GpuSnapshot s = snapshotOf("gpu uuid=GPU-h name=NVIDIA_H200 total_mib=143771 used_mib=0 reserved_mib=616",
                "gpu uuid=GPU-i name=NVIDIA_H200 total_mib=143771 used_mib=3018 reserved_mib=616");
        assertEquals(List.of(0L, 3018L), s.gpus().stream().map(GpuStat::usedMib).toList());
        assertEquals(List.of(143155L, 143155L), s.gpus().stream().map(GpuStat::totalMib).toList());
    }

    @Test
    void aDriverBeforeR510_hasOnlyTheV1Call_whichCountsItsReserveAsUsed() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.LEGACY, dir)
                .state("gpu uuid=GPU-l name=X total_mib=16384 used_mib=0 reserved_mib=300");
        backend = fake.open();
        GpuStat g = backend.snapshot().gpus().get(0);
        assertEquals(300, g.usedMib());
        assertEquals(16384, g.totalMib());
    }

    @Test
    void aV2CallThatRefusesOurStructVersion_fallsBackToV1ForGood() {
        GpuSnapshot s = snapshotOf("gpu uuid=GPU-v name=X total_mib=16384 used_mib=100 reserved_mib=300",
                "fail fn=nvmlDeviceGetMemoryInfo_v2 rc=25");
        assertEquals(400, s.gpus().get(0).usedMib());
        assertEquals(List.of(), s.warnings());
        assertEquals(400, backend.snapshot().gpus().get(0).usedMib());
    }
}
