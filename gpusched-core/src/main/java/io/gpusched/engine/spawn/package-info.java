/**
 * Starting a run and what a run is: the {@link io.gpusched.engine.spawn.RunDriver} port and its local
 * implementation ({@code JobLauncher} through {@code gpusched-spawnd} or {@code setsid}, {@code OwnerLaunch}
 * under a root daemon), the run files and names a restart re-derives ({@code RunFiles}, {@code RunNames}),
 * the wrapper script ({@code EnvironmentScript}, {@code TtyScript}), where output goes ({@code JobOutput}),
 * the live {@code RunningJob}s,. Uses only {@code proc}.
 */
package io.gpusched.engine.spawn;
