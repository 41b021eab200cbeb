/**
 * The pure allocator: given GPU views and a request, {@link io.gpusched.alloc.Allocator} returns a
 * {@link io.gpusched.alloc.Placement} (placed, or rejected with a reason a user can read). It reads no
 * clock and touches no GPU, so it can be used and tested on its own.
 */
package io.gpusched.alloc;
