/**
 * The GPU backend SPI. A backend ({@link io.gpusched.gpu.GpuBackend}) answers one question, "what is on
 * the GPUs now" ({@link io.gpusched.gpu.GpuSnapshot}); a {@link io.gpusched.gpu.GpuBackendProvider} names
 * and creates it and is found through {@link java.util.ServiceLoader} by
 * {@link io.gpusched.gpu.GpuBackends}. A plugin jar registers its provider in
 * {@code META-INF/services/io.gpusched.gpu.GpuBackendProvider} (class path) and with
 * {@code provides io.gpusched.gpu.GpuBackendProvider with ...} (module path); the testkit's
 * {@code GpuBackendContract} is the test every backend should pass.
 */
package io.gpusched.gpu;
