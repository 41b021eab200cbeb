package io.gpusched.model;

/**
 * Root of the unchecked exceptions thrown by gpusched-core. Every message is one line a user can act
 * on: it names what was wrong and, where there is one, the fix.
 */
public class GpuschedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message one-line, user-facing description of the problem and its fix
     */
    public GpuschedException(String message) {
        super(message);
    }

    /**
     * @param message one-line, user-facing description of the problem and its fix
     * @param cause the underlying failure, kept for diagnostics
     */
    public GpuschedException(String message, Throwable cause) {
        super(message, cause);
    }
}
