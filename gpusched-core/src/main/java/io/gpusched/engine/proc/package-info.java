/**
 * The process table, the engine's one port to the kernel's processes: {@link io.gpusched.engine.proc.ProcTable}
 * (sessions and their members, start ticks, whether a leader lives, its exit) with {@link
 * io.gpusched.engine.proc.ProcFs} reading {@code /proc}, and {@link io.gpusched.engine.proc.SessionSignals}
 * signalling whole sessions, and {@link io.gpusched.engine.proc.LoneSessions}, a table with no processes behind
 * it for stand-ins (the simulation, tests). The bottom room: it uses no other part of the engine, so every decision
 * above it can run on a fake table.
 */
package io.gpusched.engine.proc;
