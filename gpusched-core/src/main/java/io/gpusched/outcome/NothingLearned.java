package io.gpusched.outcome;

/**
 * What a {@code vram=auto} job says on its start and finish lines while no run of its command has taught
 * a declaration yet: it runs undeclared, and how a driver places an undeclared job is said in the middle.
 */
public final class NothingLearned {
    /** A local run: an undeclared job has an idle GPU to itself. */
    public static final String LOCAL = text("alone");
    /** A Slurm run: an undeclared job asks Slurm for a whole GPU. */
    public static final String SLURM = text("on a whole GPU");

    private NothingLearned() {
    }

    private static String text(String placed) {
        return "vram=auto: nothing learned yet, so it runs " + placed + "; its peak teaches the next run";
    }
}
