/**
 * The scheduler's public face: start at {@link io.gpusched.Scheduler#builder()}.
 *
 * <p>A {@link io.gpusched.Scheduler} takes a GPU backend ({@link io.gpusched.gpu.GpuBackend}), a jobs
 * file or a job list, {@link io.gpusched.options.SchedulerOptions} and listeners; {@link io.gpusched.Scheduler#run()}
 * runs its event loop on the calling thread and returns a {@link io.gpusched.model.RunSummary}.
 * {@link io.gpusched.Scheduler#submit} and {@link io.gpusched.Scheduler#close()} may be called from any
 * thread; they post to the loop. Listeners receive {@link io.gpusched.event.SchedulerEvent}s (a sealed
 * interface of records) on the loop's thread; {@link io.gpusched.event.JsonEventWriter} is a listener that
 * writes them as JSON Lines. The scheduler holds no static state: several may run in one JVM on
 * different log directories.
 */
package io.gpusched;
