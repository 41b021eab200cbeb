/**
 * The NVML GPU backend through JNA: provider {@code nvml}. Nothing here is API; select it with
 * {@code GpuBackends.load("nvml", options)} or let {@code GpuBackends.detect} find it.
 *
 * @provides io.gpusched.gpu.GpuBackendProvider provider {@code nvml}
 */
module io.gpusched.nvml {
    requires io.gpusched;
    requires com.sun.jna;

    // JNA reads the Structure fields and proxies the library interface reflectively.
    opens io.gpusched.nvml to com.sun.jna;

    provides io.gpusched.gpu.GpuBackendProvider with io.gpusched.nvml.NvmlBackendProvider;
}
