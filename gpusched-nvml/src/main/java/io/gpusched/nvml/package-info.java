/**
 * The {@code nvml} GPU backend: NVIDIA GPUs and MIG instances read through the driver's NVML library
 * with JNA. The only public type is {@link io.gpusched.nvml.NvmlBackendProvider}, the service that
 * {@link io.gpusched.gpu.GpuBackends} finds; everything else is an implementation detail.
 *
 * <p>Layout: {@code NvmlLoader} loads the library on demand and {@code NvmlSymbols} probes what this
 * driver exports; {@code NvmlLibrary}/{@code NvmlStructs} are the JNA mapping; {@code SnapshotReader}
 * walks the devices, {@code ProcessListReader}/{@code ProcessEntries} decode process lists at an
 * explicit stride; {@code NvmlBackend} owns the NVML session and its recovery.
 */
package io.gpusched.nvml;
