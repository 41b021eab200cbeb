/**
 * The {@code gpusched} command line and its dashboard: runs a jobs file, serves a root daemon, and
 * speaks to one ({@code submit}, {@code queue}, {@code srun}, ...). Not a library: it exports nothing.
 * It uses core's exported API and, through qualified exports, the journal and its statistics (for
 * {@code stats} and crash-safe reads), the launch checks ({@code doctor}) and the testkit's replay
 * ({@code simulate}). Its bundled {@code gpusched.jar} runs on the class path; this descriptor is what
 * keeps its imports to those packages.
 */
module io.gpusched.cli {
    requires io.gpusched;
    requires io.gpusched.slurm;
    requires io.gpusched.testkit;
    requires com.fasterxml.jackson.core;
    requires info.picocli; // the command line's parser, built with its programmatic API (no reflection)
    requires jdk.httpserver; // the dashboard
    requires jdk.unsupported; // sun.misc.Signal: SIGINT/SIGTERM/SIGWINCH handlers
    requires jdk.management; // the process metrics (CPU time, open files), with java.management
}
