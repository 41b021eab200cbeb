/**
 * What a running scheduler tells the outside: the sealed {@link io.gpusched.event.SchedulerEvent}s a
 * listener receives on the loop's thread, the published {@link io.gpusched.event.QueueSnapshot} and
 * {@link io.gpusched.event.StatusBoard}, and {@link io.gpusched.event.JsonEventWriter}, a listener
 * writing the events as JSON Lines.
 *
 * <p>These are values only; the engine produces them and the facade, the service and the command line
 * read them. It depends on {@code model}, {@code gpu} (a snapshot's GPU rows) and {@code policy} (a
 * reservation's description), never on the engine.
 */
package io.gpusched.event;
