package io.gpusched.cli;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Runs tmux in the caller's terminal against a {@code [tty]} job's own server ({@code tmux -L NAME}),
 * as the caller: the server runs as the job's owner and its socket is in their tmux directory.
 */
final class TmuxAttach {
    private TmuxAttach() {
    }

    /** What became of an attempt to attach. */
    enum Result {
        /** tmux attached and has returned: detached, or the job ended. */
        ATTACHED,
        /** No such session: not a {@code [tty]} job, or not running. */
        NO_SESSION,
        /** No {@code tmux} on the caller's PATH. */
        NO_TMUX
    }

    /**
     * @param name the job's tmux socket and session name
     * @return whether the job has a live terminal now
     */
    static Result hasSession(String name) {
        try {
            Process p = tmux(List.of("has-session", "-t", name), name)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor() == 0 ? Result.ATTACHED : Result.NO_SESSION;
        } catch (IOException e) {
            return Result.NO_TMUX;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.NO_SESSION;
        }
    }

    /**
     * Attaches in this terminal until the user detaches (Ctrl-b d) or the job ends.
     *
     * @param name the job's tmux socket and session name
     * @return tmux's exit status
     */
    static int attach(String name) throws IOException {
        Process p = tmux(List.of("attach-session", "-t", name), name).inheritIO().start();
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static ProcessBuilder tmux(List<String> args, String name) {
        List<String> argv = new java.util.ArrayList<>(List.of("tmux", "-L", name));
        argv.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(argv);
        Map<String, String> env = pb.environment();
        // The job's server is in tmux's default directory (its script unsets these too); and attaching
        // from inside another tmux is what the user asked for, not an accident to refuse.
        env.remove("TMUX");
        env.remove("TMUX_TMPDIR");
        return pb;
    }
}
