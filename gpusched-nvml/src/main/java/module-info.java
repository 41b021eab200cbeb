/**
 * The NVML GPU backend through JNA: provider {@code nvml}. Nothing here is API; select it with
 * {@code GpuBackends.load("nvml", options)} or let {@code GpuBackends.detect} find it.
 *
 * @provides io.gpusched.gpu.GpuBackendProvider provider {@code nvml}
 */
@SuppressWarnings("requires-automatic") // com.sun.jna, knowingly: see its requires
module io.gpusched.nvml {
    requires io.gpusched;
    // The jna jar is an automatic module, named in its manifest. JNA's jna-jpms artifact has a real
    // module-info under the same name, but the plain jar is what class-path users and gpusched.jar use.
    requires com.sun.jna;

    // JNA reads the Structure fields and proxies the library interface reflectively.
    opens io.gpusched.nvml to com.sun.jna;

    provides io.gpusched.gpu.GpuBackendProvider with io.gpusched.nvml.NvmlBackendProvider;
}
