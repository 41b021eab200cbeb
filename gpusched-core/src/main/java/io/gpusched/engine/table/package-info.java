/**
 * The job table, the one place a job is read from: {@link io.gpusched.engine.table.JobTable} (a row per
 * job: typed id, number, state, owner, spec, attempts, run) and its sources: the jobs file read when
 * it is stable ({@code JobsSource}, {@code StableReader}) and API submissions.
 */
package io.gpusched.engine.table;
