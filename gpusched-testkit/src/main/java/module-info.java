/**
 * gpusched testkit: simulated GPUs (provider {@code sim}) and the simulated job, a one-node local Slurm
 * ({@link io.gpusched.testkit.slurm.LocalSlurm}) for integration tests, a scripted fake
 * backend, the public backend contract test (needs JUnit Jupiter on the path), and random generators.
 *
 * @provides io.gpusched.gpu.GpuBackendProvider provider {@code sim}
 */
// "module": io.gpusched.cli, named in a qualified export below, is built after this module.
@SuppressWarnings("module")
module io.gpusched.testkit {
    requires transitive io.gpusched;
    requires static org.junit.jupiter.api;

    exports io.gpusched.testkit.sim;
    exports io.gpusched.testkit.fake;
    exports io.gpusched.testkit.contract;
    exports io.gpusched.testkit.arbitraries;
    exports io.gpusched.testkit.slurm;
    // The replay engine behind gpusched simulate: a command-line feature, not test support API.
    exports io.gpusched.testkit.replay to io.gpusched.cli;

    // JUnit instantiates the contract test's subclasses reflectively.
    opens io.gpusched.testkit.contract;

    provides io.gpusched.gpu.GpuBackendProvider with io.gpusched.testkit.sim.SimulatedGpuBackendProvider;
}
