/** An example gpusched backend plugin. On the module path it is found through {@code provides}. */
module com.example.gpu {
    requires io.gpusched;

    provides io.gpusched.gpu.GpuBackendProvider with com.example.gpu.FixedGpuBackendProvider;
}
