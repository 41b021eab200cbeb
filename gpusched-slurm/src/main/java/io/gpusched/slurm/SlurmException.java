package io.gpusched.slurm;

/** A jobs file Slurm cannot run, or a Slurm command that failed; the message is one line saying what to do. */
public final class SlurmException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message one line: what went wrong and the fix */
    public SlurmException(String message) {
        super(message);
    }
}
