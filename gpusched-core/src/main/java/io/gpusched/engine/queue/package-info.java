/**
 * The pending queue as a query over the table ({@code PendingQueue}), API submissions accepted into it
 * ({@code Submissions}), and the settlement run before each plan ({@code Settlement}: orphans,
 * retries, failed dependencies, retired submissions), which is where the queue's journal writes are.
 */
package io.gpusched.engine.queue;
