/**
 * The engine: one thread owns all scheduler state ({@code Engine} wires the rooms and runs the loop;
 * {@code Controls} answers cancel, pause and queries on it). Internal: the facade {@code Scheduler} is
 * its only user outside. Its rooms, bottom up, each using only the rooms below it (checked by
 * {@code ArchitectureTest}): {@code proc}, {@code spawn}, {@code preflight}, {@code loop}, {@code table}, {@code observe},
 * {@code stop}, {@code lease}, {@code ending}, {@code queue}, {@code plan}, {@code sim} (a simulated machine
 * for a virtual clock: used by nothing but the engine's {@code simulated} factory).
 */
package io.gpusched.engine;
