/**
 * gpusched core: the {@link io.gpusched.Scheduler} (start at {@code Scheduler.builder()}), job specs and
 * the jobs-file parser, the pure allocator, and the GPU backend SPI with its ServiceLoader discovery
 * ({@link io.gpusched.gpu.GpuBackends}).
 *
 * <p>Only the API packages are exported; the engine and the journal are internal.
 *
 * @uses io.gpusched.gpu.GpuBackendProvider backends found by {@link io.gpusched.gpu.GpuBackends}
 */
module io.gpusched {
    requires com.fasterxml.jackson.core;
    requires jdk.net;

    exports io.gpusched;
    exports io.gpusched.model;
    exports io.gpusched.event;
    exports io.gpusched.options;
    exports io.gpusched.jobs;
    exports io.gpusched.alloc;
    exports io.gpusched.gpu;
    exports io.gpusched.policy;
    exports io.gpusched.protocol;
    exports io.gpusched.service;

    uses io.gpusched.gpu.GpuBackendProvider;
}
