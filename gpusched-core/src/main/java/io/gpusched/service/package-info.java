/**
 * The service: a scheduler answering clients over a UNIX domain socket ({@link ServiceServer}), and
 * the client other tools embed ({@link GpuschedClient}). The protocol is JSON lines, versioned,
 * described in {@code PROTOCOL.md} at the repository's root. Who a client is comes from the kernel
 * ({@code SO_PEERCRED}), never from what it says.
 *
 * <p>Exported for embedders: {@link GpuschedClient} for tools that talk to a daemon (typed answers from
 * {@code io.gpusched.protocol}), and {@link ServiceServer} for a program that serves its own
 * {@code Scheduler} over a socket, as {@code gpusched serve} does. The lease plumbing behind
 * {@code srun} is internal to it.
 */
package io.gpusched.service;
