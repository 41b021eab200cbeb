package com.example.gpu;

import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider;

/**
 * Provider {@code fixed}: GPUs that are always idle ({@code gpus=N}, default 2, each {@code mib=M},
 * default 16000). Registered in {@code META-INF/services/io.gpusched.gpu.GpuBackendProvider} and in
 * {@code module-info.java}. Priority 0, so {@code GpuBackends.detect} prefers real hardware; select it
 * with {@code --backend fixed}.
 */
public final class FixedGpuBackendProvider implements GpuBackendProvider {
    /** Needed by ServiceLoader. */
    public FixedGpuBackendProvider() {
    }

    @Override
    public String name() {
        return "fixed";
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability(BackendOptions options) {
        return Availability.yes();
    }

    @Override
    public GpuBackend create(BackendOptions options) {
        int gpus = Integer.parseInt(options.get("gpus").orElse("2"));
        long mib = Long.parseLong(options.get("mib").orElse("16000"));
        return new FixedGpuBackend(gpus, mib);
    }
}
