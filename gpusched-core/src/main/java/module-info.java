/**
 * gpusched core: the {@link io.gpusched.Scheduler} (start at {@code Scheduler.builder()}), job specs and
 * the jobs-file parser, the pure allocator, and the GPU backend SPI with its ServiceLoader discovery
 * ({@link io.gpusched.gpu.GpuBackends}).
 *
 * <p>Only the API packages are exported to everyone; the engine is internal. The journal (with the log
 * directory's lock), the outcome rules, the session scanner, the journal's statistics and the launch checks are internal
 * too, exported only to the gpusched modules that drive runs or read journals: the Slurm executor and
 * the command line.
 *
 * @uses io.gpusched.gpu.GpuBackendProvider backends found by {@link io.gpusched.gpu.GpuBackends}
 */
// "module": the modules named in the qualified exports below are built after this one, so javac cannot
// see them yet when it compiles core; that is their order in the reactor, not a misspelling.
@SuppressWarnings("module")
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
    exports io.gpusched.cluster;

    // Internal, for gpusched's own modules only.
    exports io.gpusched.journal to io.gpusched.slurm, io.gpusched.cli;
    exports io.gpusched.outcome to io.gpusched.slurm;
    exports io.gpusched.proc to io.gpusched.slurm;
    exports io.gpusched.stats to io.gpusched.cli;
    // gpusched doctor runs the same start-up checks the engine's launcher relies on (Preflight).
    exports io.gpusched.engine.preflight to io.gpusched.cli;
    // gpusched srun runs its command itself: conda= and setup= wrap it as the daemon's launch wraps a job's.
    exports io.gpusched.engine.spawn to io.gpusched.cli;

    uses io.gpusched.gpu.GpuBackendProvider;
}
