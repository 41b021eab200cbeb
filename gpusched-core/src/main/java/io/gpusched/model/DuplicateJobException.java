package io.gpusched.model;

/**
 * A {@code unique} submission not queued because its owner already has the same job (the same command
 * and attributes, from the same directory) queued, running or ended ok: the job it names is the one
 * that stands for it. Nothing was journaled and no display number was used. A job that ended any other
 * way (failed, timed out, cancelled) is no reason: the same submission is then queued again.
 */
public final class DuplicateJobException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** The display number of the job already there. */
    private final int no;
    /** Where it stands: {@link JobState#PENDING}, {@link JobState#RUNNING} or {@link JobState#OK}. */
    private final JobState state;

    /**
     * @param no the display number of the job already there
     * @param state where it stands: {@link JobState#PENDING}, {@link JobState#RUNNING} (a launch in flight
     *     counts as running) or {@link JobState#OK}
     * @throws IllegalArgumentException for any other state
     */
    public DuplicateJobException(int no, JobState state) {
        super("job " + no + " " + said(state) + ": not submitted again");
        this.no = no;
        this.state = state;
    }

    /**
     * How a duplicate's answer says where the job stands, as {@code gpusched submit} prints it.
     *
     * @param state {@link JobState#PENDING}, {@link JobState#RUNNING} or {@link JobState#OK}
     * @return {@code already queued}, {@code already running} or {@code already done ok}
     * @throws IllegalArgumentException for any other state
     */
    public static String said(JobState state) {
        return switch (state) {
            case PENDING -> "already queued";
            case RUNNING -> "already running";
            case OK -> "already done ok";
            default -> throw new IllegalArgumentException("a duplicate is of a job queued, running or done ok, not "
                    + state.journalName());
        };
    }

    /** @return the display number of the job already there */
    public int no() {
        return no;
    }

    /** @return where it stands: {@link JobState#PENDING}, {@link JobState#RUNNING} or {@link JobState#OK} */
    public JobState state() {
        return state;
    }
}
