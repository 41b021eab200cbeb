/**
 * The service: a scheduler answering clients over a UNIX domain socket ({@link ServiceServer}), and
 * the client other tools embed ({@link GpuschedClient}). The protocol is JSON lines, versioned,
 * described in {@code PROTOCOL.md} at the repository's root. Who a client is comes from the kernel
 * ({@code SO_PEERCRED}), never from what it says.
 */
package io.gpusched.service;
