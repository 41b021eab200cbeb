/**
 * Decide, then do: {@code Dispatcher.decide} returns a {@link io.gpusched.engine.plan.Plan} (starts,
 * waits with reasons, fails) computed from the pending jobs, the running set and a GPU snapshot alone;
 * {@code Dispatcher.apply} carries it out afterwards, each start through the {@code Launcher};
 * {@code Planner} skips rounds where nothing changed. The top room below the engine itself.
 */
package io.gpusched.engine.plan;
