/**
 * Reading process sessions from {@code /proc}: {@link io.gpusched.proc.ProcSessions} lists a session's
 * live processes and reads each process's {@link io.gpusched.proc.ProcStat}. One scanner for every
 * driver: the local engine attributes and stops jobs by their session, and the Slurm wrapper measures
 * the command it started the same way.
 *
 * <p>Internal: exported only to {@code io.gpusched.slurm}. It depends on nothing else of gpusched.
 */
package io.gpusched.proc;
