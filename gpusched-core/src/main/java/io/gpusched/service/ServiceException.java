package io.gpusched.service;

import io.gpusched.model.GpuschedException;
import java.util.Objects;

/**
 * A request the service refused, or a service that could not be reached, with a code a program can
 * act on and a one-line message a user can.
 */
public final class ServiceException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** Serialized: the error's code, e.g. {@code forbidden}. */
    private final String code;

    /**
     * @param code the error's code: one of the codes {@code PROTOCOL.md} lists
     * @param message one line saying what went wrong and what to do
     */
    public ServiceException(String code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** @return the error's code, e.g. {@code bad_request}, {@code forbidden}, {@code unreachable} */
    public String code() {
        return code;
    }
}
