package io.gpusched.nvml;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.testkit.contract.GpuBackendContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The backend contract, against NVML over the fake driver with a MIG GPU among ordinary ones. */
class NvmlBackendContractTest extends GpuBackendContract {
    @TempDir
    Path dir;

    @Override
    protected GpuBackend createBackend() {
        return FakeNvml.start(FakeNvml.Variant.MODERN, dir).state(
                "gpu uuid=GPU-a name=NVIDIA_A100 bus=00000000:07:00.0 total_mib=40960 used_mib=3000 util=12",
                "gpu uuid=GPU-m name=NVIDIA_A100 bus=00000000:0F:00.0 total_mib=40960 used_mib=0 mig=1",
                "mig gpu=1 idx=0 uuid=MIG-0 name=NVIDIA_A100_MIG_3g.20gb total_mib=19968 used_mib=1000 gi=1 ci=0",
                "gpu uuid=GPU-b name=NVIDIA_A100 bus=00000000:47:00.0 total_mib=40960 used_mib=0 util=na",
                "proc gpu=0 pid=10 used_mib=1000",
                "proc gpu=0 pid=11 used=na",
                "proc gpu=1 mig=0 pid=12 used_mib=900").open();
    }
}
