/**
 * {@code gpusched stats}' figures from a journal alone: jobs by final status, GPU-hours, waits,
 * utilisation of each GPU over a period, and how good VRAM declarations were, in all and per user, plus
 * the runs a GPU-memory chart draws. Pure: journal entries and a query in, a
 * {@link io.gpusched.stats.Stats} record out; no clock (the period's end comes in), no files.
 */
package io.gpusched.stats;
