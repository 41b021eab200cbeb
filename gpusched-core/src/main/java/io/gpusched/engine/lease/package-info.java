/**
 * {@code srun} leases: the other run driver, where the process lives in the client's session and the
 * scheduler holds GPUs for it ({@code Leases}): grants, heartbeats, abandoned leases.
 */
package io.gpusched.engine.lease;
