package io.gpusched.proc;

/**
 * The fields of one process's {@code /proc/<pid>/stat} that gpusched uses.
 *
 * @param zombie whether it has exited and waits to be reaped (it holds no memory and cannot be signalled)
 * @param session its session id
 * @param startTicks its start time, in clock ticks since boot
 */
public record ProcStat(boolean zombie, long session, long startTicks) {
}
