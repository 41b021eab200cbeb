/**
 * {@link io.gpusched.options.SchedulerOptions}: the tunables of a scheduler (margins, timing, retries,
 * policy), an immutable value the facade's builder fills in and the engine reads. It sits below the
 * engine so that the engine never depends on the facade that builds it.
 */
package io.gpusched.options;
