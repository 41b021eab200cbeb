package io.gpusched.gpu;

/**
 * A named kind of GPU backend, discovered with {@link java.util.ServiceLoader}. Register an
 * implementation in {@code META-INF/services/io.gpusched.gpu.GpuBackendProvider} (and with
 * {@code provides} in a {@code module-info}). Implementations must have a public no-argument
 * constructor that does no work: load native libraries in {@link #availability} or {@link #create}.
 */
public interface GpuBackendProvider {
    /** @return the name users select it by, e.g. {@code nvml}, {@code sim}; lowercase, unique */
    String name();

    /**
     * @return the order {@link GpuBackends#detect} tries providers in, highest first; providers that
     *     should never be chosen automatically (simulations) return a negative number
     */
    int priority();

    /**
     * Whether this backend can run on this machine, checked without side effects that outlive the
     * call. Must not throw.
     *
     * @param options the options {@link #create} would receive
     * @return available, or the reason it is not (e.g. the driver library is missing)
     */
    Availability availability(BackendOptions options);

    /**
     * Creates a backend.
     *
     * @param options provider-specific options
     * @return an open backend; the caller closes it
     * @throws BackendException when it cannot be created; the message says why
     */
    GpuBackend create(BackendOptions options);

    /**
     * Whether a provider can run here.
     *
     * @param available true when {@link GpuBackendProvider#create} is expected to succeed
     * @param reason why not, for error messages; empty when available
     */
    record Availability(boolean available, String reason) {
        /** @return available */
        public static Availability yes() {
            return new Availability(true, "");
        }

        /**
         * @param reason why the backend cannot run here, and what to do about it
         * @return not available
         */
        public static Availability no(String reason) {
            return new Availability(false, reason);
        }
    }
}
