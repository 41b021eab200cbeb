/**
 * How runs end: applying the outcome rules ({@code io.gpusched.outcome}) to an ended attempt and journaling it ({@code Outcomes}),
 * and what a dead scheduler left behind
 * ({@code Orphans}: runs taken up again, settled from their exit files, or run again).
 */
package io.gpusched.engine.ending;
