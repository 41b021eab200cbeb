package io.gpusched.gpu;

import io.gpusched.model.GpuschedException;

/** A GPU backend could not be found, loaded or read. The message says why and what to do. */
public class BackendException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** @param message one-line cause and fix */
    public BackendException(String message) {
        super(message);
    }

    /**
     * @param message one-line cause and fix
     * @param cause underlying failure
     */
    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
