package io.gpusched.model;

import io.gpusched.Scheduler;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Another scheduler holds the log directory: two schedulers on one journal would each run every job.
 * Thrown by {@link Scheduler#run()} before anything is read, written or started.
 */
public final class LogDirInUseException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** The log directory. */
    private final transient Path logDir;
    /** The holder's process id, when its lock file names one. */
    private final OptionalLong holderPid;

    /**
     * @param logDir the log directory
     * @param holderPid the holder's process id, when known
     */
    public LogDirInUseException(Path logDir, OptionalLong holderPid) {
        super(logDir + " is in use by gpusched (" + (holderPid.isPresent() ? "pid " + holderPid.getAsLong() : "pid unknown")
                + "); stop it or use another --log-dir");
        this.logDir = logDir;
        this.holderPid = holderPid;
    }

    /** @return the log directory that is in use */
    public Path logDir() {
        return logDir;
    }

    /** @return the process id of the scheduler holding it, when its lock file names one */
    public OptionalLong holderPid() {
        return holderPid;
    }
}
