package io.gpusched.journal;

import io.gpusched.model.GpuschedException;

/** The journal could not be read or written. The message names the file and the cause. */
public final class JournalException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message one-line cause and fix
     * @param cause underlying failure
     */
    public JournalException(String message, Throwable cause) {
        super(message, cause);
    }
}
