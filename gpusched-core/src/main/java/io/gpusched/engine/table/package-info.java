/**
 * The job table, the one place a job is read from: {@link io.gpusched.engine.table.JobTable} (a row per
 * job: typed id, number, state, owner, spec, attempts, run handle, its run here; and what only the loop
 * knows of it: where it waits, whether it ended before this run, its line when it ended) and its
 * sources: the jobs file read when it is stable ({@code JobsSource}, {@code StableReader}) and API
 * submissions. Uses only {@code spawn} (what a run is) and {@code proc}.
 */
package io.gpusched.engine.table;
