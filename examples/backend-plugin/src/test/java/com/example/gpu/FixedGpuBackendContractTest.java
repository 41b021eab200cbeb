package com.example.gpu;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.testkit.contract.GpuBackendContract;

/** gpusched's backend contract, run against this plugin: every test in GpuBackendContract runs here. */
class FixedGpuBackendContractTest extends GpuBackendContract {
    @Override
    protected GpuBackend createBackend() {
        return new FixedGpuBackend(2, 16000);
    }
}
