package io.gpusched.cli;

import io.gpusched.model.JobStage;
import io.gpusched.protocol.Row;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A job's output for {@code gpusched logs N [-f]} and {@code gpusched attach N}: the log files the
 * daemon names (the job's own, so the client reads them directly), copied or followed while the job
 * runs, or its {@code [tty]} terminal through tmux.
 */
final class JobOutputReader {
    private final PrintStream out;
    private final PrintStream err;
    private final Consumer<Runnable> onInterrupt;
    /** The files said unreadable already. */
    private final java.util.Set<Path> unreadable = new java.util.HashSet<>();

    /** @param onInterrupt told what Ctrl-C does while a log is followed (detach), and {@code null} after */
    JobOutputReader(PrintStream out, PrintStream err, Consumer<Runnable> onInterrupt) {
        this.out = out;
        this.err = err;
        this.onInterrupt = onInterrupt;
    }

    /**
     * Attaches to a running {@code [tty]} job's terminal; any other job's log is followed instead, as
     * {@code logs N -f} does, after one line saying so.
     */
    int attach(GpuschedClient c, int no) {
        GpuschedClient.Logs logs = c.logs(no);
        java.util.Optional<String> owner = logs.tty().isEmpty() ? java.util.Optional.empty()
                : c.job(no).row().owner().map(io.gpusched.protocol.ListText::text).filter(o -> !o.equals(c.user()));
        if (owner.isPresent()) {
            err.println(othersTerminal(no, owner.get(), logs.tty().get()));
            return logs(c, no, true);
        }
        TmuxAttach.Result found = logs.tty().map(TmuxAttach::hasSession).orElse(TmuxAttach.Result.NO_SESSION);
        if (found == TmuxAttach.Result.ATTACHED) {
            try {
                int rc = TmuxAttach.attach(logs.tty().get());
                err.println(afterAttach(c, no, logs.tty().get()));
                return rc == 0 ? 0 : 1;
            } catch (java.io.IOException e) {
                found = TmuxAttach.Result.NO_TMUX;
            }
        }
        if (logs.state().isEmpty()) {
            err.println("gpusched: no job " + no + " in this queue");
            return 1;
        }
        err.println("gpusched: job " + no + (found == TmuxAttach.Result.NO_TMUX
                ? " may have a terminal, but there is no tmux here (install the package tmux)"
                : " has no terminal to attach to (not a [tty] job, or not running)") + "; following its log as"
                + " gpusched logs " + no + " -f does");
        return logs(c, no, true);
    }

    /**
     * What {@code attach} says to root (or an admin) asking for another user's terminal. The job's tmux
     * server is its owner's, and a server can make an attached client replace itself with a command
     * ({@code detach-client -E}): attached to it, root's client would run that user's command as root.
     * So gpusched never attaches anyone to another user's server, and says how to do it as the owner.
     */
    static String othersTerminal(int no, String owner, String tty) {
        return "gpusched: job " + no + "'s terminal is " + owner + "'s own tmux server, and gpusched does not attach"
                + " you to another user's (a server can make its clients run commands, which would run as you); as "
                + owner + ": sudo -u " + owner + " tmux -L " + tty + " attach; following its log as gpusched logs "
                + no + " -f does";
    }

    /** How long {@code attach} waits for the daemon to list a job whose terminal closed as ended. */
    static final java.time.Duration END_WAIT = java.time.Duration.ofSeconds(30);

    /**
     * What {@code attach} says once tmux returns. The terminal is asked, not the daemon: while the job's
     * session is still there the user detached, and the job keeps running. Once it is gone the job's
     * command has ended, but the daemon learns that only when the job's wrapper, which outlives the
     * terminal by a moment (it waits for the last output to reach the log), exits and is reaped: the
     * daemon is asked until it lists the end (at most {@link #END_WAIT}), so the end is what is said.
     */
    private static String afterAttach(GpuschedClient c, int no, String tty) {
        if (TmuxAttach.hasSession(tty) == TmuxAttach.Result.ATTACHED) {
            return "detached: job " + no + " keeps running (gpusched attach " + no + " attaches again)";
        }
        for (long end = System.nanoTime() + END_WAIT.toNanos(); ; ) {
            Row row;
            try {
                row = c.job(no).row();
            } catch (ServiceException e) {
                return "gpusched: job " + no + "'s terminal closed, but its outcome cannot be read: " + e.getMessage();
            }
            if (row instanceof Row.Ended e) {
                return outcome(e);
            }
            if (row instanceof Row.Pending) {
                return "job " + no + " was stopped and waits to run again (gpusched attach " + no + " once it runs)";
            }
            if (System.nanoTime() > end) {
                return "gpusched: job " + no + "'s terminal closed, but after " + END_WAIT.toSeconds() + " s the queue still"
                        + " lists it running (gpusched show " + no + " says how it ends)";
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "job " + no + "'s terminal closed";
            }
        }
    }

    /**
     * Prints a job's output: every attempt's log in turn; with {@code follow}, then what the newest one
     * gains until the job has ended (polling: the file is the job's, written by it).
     */
    int logs(GpuschedClient c, int no, boolean follow) {
        GpuschedClient.Logs logs = c.logs(no);
        Optional<OthersOutput> others = OthersOutput.forReader(owner(c, no, logs), c.user());
        if (!follow) {
            List<Path> files = existing(logs);
            if (files.isEmpty()) {
                err.println("gpusched: " + (logs.state().isEmpty() ? "no job " + no + " in this queue"
                        : "job " + no + " has no log yet (" + logs.state().get().wireName() + ")"));
                return 1;
            }
            files.forEach(f -> copy(f, 0, others));
            return 0;
        }
        if (logs.state().equals(Optional.of(JobStage.PENDING))) {
            err.println("job " + no + " is pending" + waits(c, no) + "; its output follows once it starts (Ctrl-C detaches)");
        }
        // Ctrl-C stops following, not the job: Main's shutdown hook says so and exits 0.
        onInterrupt.accept(() -> err.println("detached: job " + no + " keeps running (gpusched logs " + no
                + " -f follows it again)"));
        try {
            return follow(c, no, logs, others);
        } finally {
            onInterrupt.accept(null);
        }
    }

    /** The job's owner, as the queue lists it; empty where it lists none (a jobs-file run, no such job). */
    private static Optional<String> owner(GpuschedClient c, int no, GpuschedClient.Logs logs) {
        if (logs.state().isEmpty()) {
            return Optional.empty();
        }
        try {
            return c.job(no).row().owner().map(io.gpusched.protocol.ListText::text);
        } catch (ServiceException e) {
            return Optional.empty();
        }
    }

    /** Why a pending job waits, as {@code , waits: REASON}; nothing when the queue cannot say. */
    private static String waits(GpuschedClient c, int no) {
        try {
            return c.job(no).row() instanceof Row.Pending p ? " (waits: " + DisplayWidth.clean(p.reason().text()) + ")" : "";
        } catch (ServiceException e) {
            return "";
        }
    }

    /**
     * {@code submit --follow}: the job's output until it ends, then its outcome line on standard error
     * (as {@code srun} prints it) and its exit status as this command's ({@link ExitCodes}).
     *
     * @return the job's exit status (128 + N after signal N); 0 when following stopped before the end
     */
    int followToOutcome(GpuschedClient c, int no) {
        int rc = logs(c, no, true);
        if (rc != 0 || Thread.currentThread().isInterrupted()) {
            return rc;
        }
        // The loop said ended; a daemon from before queue answers waited for the round under way may
        // answer from a snapshot a round behind it.
        for (long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10); ; ) {
            try {
                if (c.job(no).row() instanceof Row.Ended e) {
                    err.println(outcome(e));
                    return e.status().isFailure() && e.exitCode() == 0 ? ExitCodes.REFUSED : ExitCodes.ofJob(e.exitCode());
                }
            } catch (ServiceException e) {
                err.println("gpusched: job " + no + " ended, but its outcome cannot be read: " + e.getMessage());
                return ExitCodes.REFUSED;
            }
            if (System.nanoTime() > end) {
                err.println("gpusched: job " + no + " ended, but the queue has not listed its outcome yet");
                return ExitCodes.REFUSED;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
    }

    /**
     * What a verdict on a declaration adds to an outcome line: {@code ", under-declared"} (the peak went
     * above it by more than the tolerance), {@code ", over-declared"} (stayed below it by more), nothing
     * when it was within, or not judged (undeclared, or not ended ok).
     */
    static String verdictWords(io.gpusched.model.Verdict v) {
        return switch (v) {
            case OVER -> ", under-declared";
            case UNDER -> ", over-declared";
            case WITHIN, UNATTRIBUTED, NOT_JUDGED -> "";
        };
    }

    /** {@code job 3 ok in 2s, peak 812 MiB of 1024 MiB declared, over-declared}, as {@code srun} says it. */
    static String outcome(Row.Ended e) {
        StringBuilder s = new StringBuilder("job " + e.no() + " " + e.status().journalName());
        if (e.status() != io.gpusched.model.JobStatus.OK) {
            s.append(", exit ").append(e.exitCode());
        }
        s.append(" in ").append(Math.round(e.durationSeconds())).append("s");
        if (!e.peakMib().isEmpty()) {
            s.append(", peak ").append(e.overallPeakMib()).append(" MiB");
            e.declaredMib().ifPresent(d -> s.append(" of ").append(d).append(" MiB declared"));
            s.append(verdictWords(e.verdict()));
        } else {
            s.append(", no GPU memory seen");
        }
        e.cause().ifPresent(c -> s.append("; ").append(c.text()));
        return DisplayWidth.clean(s.toString());
    }

    /** Copies every attempt's log in turn, then what the newest gains, until the job has ended. */
    private int follow(GpuschedClient c, int no, GpuschedClient.Logs first, Optional<OthersOutput> others) {
        GpuschedClient.Logs logs = first;
        int index = 0;
        long offset = 0;
        while (true) {
            // Read the state before copying: once it says ended, what is copied after is the job's last word.
            boolean ended = logs.state().map(s -> s == JobStage.ENDED).orElse(true);
            List<Path> files = existing(logs);
            while (index < files.size()) {
                offset = copy(files.get(index), offset, others);
                if (index + 1 >= files.size()) {
                    break;
                }
                index++; // an attempt on other GPUs started: its log follows
                offset = 0;
            }
            if (ended) {
                return 0;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
            logs = c.logs(no);
        }
    }

    /**
     * The files of the answer that exist, as this user sees them: the daemon names a job's own output
     * without looking (it may be root, and must not probe a user's path), so one not yet created is
     * skipped here.
     */
    private static List<Path> existing(GpuschedClient.Logs logs) {
        return logs.files().stream().filter(java.nio.file.Files::exists).toList();
    }

    /**
     * Copies a file from a byte offset to stdout, as it is for the reader's own job and as text for
     * another user's ({@link OthersOutput}).
     *
     * @return the offset after what was copied
     */
    private long copy(Path f, long from, Optional<OthersOutput> others) {
        try (java.nio.channels.FileChannel ch = others.isPresent() ? others.get().open(f)
                : java.nio.channels.FileChannel.open(f)) {
            ch.position(from);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64 * 1024);
            long at = from;
            int n;
            while ((n = ch.read(buf)) > 0) {
                if (others.isPresent()) {
                    out.writeBytes(others.get().text(buf.array(), n));
                } else {
                    out.write(buf.array(), 0, n);
                }
                at += n;
                buf.clear();
            }
            out.flush();
            return at;
        } catch (java.io.IOException e) {
            if (unreadable.add(f)) { // once, not at each look while following
                err.println("gpusched: cannot read " + f + ": " + e.getMessage());
            }
            return from;
        }
    }
}
