package io.gpusched.engine.spawn;

import io.gpusched.model.TtySession;

/**
 * The shell text that runs a {@code [tty]} job's command in a detached tmux session, evaluated where a
 * plain command would be (the wrapper's subshell, or the owner's inner shell under a root daemon).
 *
 * <p>That shell starts the job's own tmux server ({@link TtySession}) with its environment, run token
 * included, so the server and the pane's processes are found by token (attribution, the leftover sweep)
 * although tmux puts them in sessions of their own. The pane runs the command as the wrapper does (a
 * subshell, so {@code exit} ends only the command; SIGTERM ends it with 143) and writes its exit status
 * to a file, which the shell hands on as its own. The pane's output goes to the job's log through
 * {@code pipe-pane}: the pane waits for that pipe before the command starts, so nothing is lost, and
 * the pipe drops the carriage return the terminal adds before each newline, so the log reads as a plain
 * job's. The shell waits for the server to end; a SIGTERM to the job's session (cancel, timeout) is
 * passed on to the pane's process group, which is outside that session. tmux leaves its socket behind
 * when its server exits, so the shell removes it last, once no server answers on it (a shell killed
 * before that leaves it to the scheduler's sweep, {@link TtySockets}). Without tmux the job fails
 * with 127 after one line naming the package.
 */
final class TtyScript {
    /** Why a tty job failed when tmux is missing. */
    static final String TMUX_MISSING = "tty but no 'tmux' on PATH";
    /** What to do then. */
    static final String TMUX_FIX = "install the package tmux (apt install tmux), or drop tty from the job";

    private TtyScript() {
    }

    /**
     * @param script the shell text a plain job would evaluate
     * @param tty the job's terminal
     * @return the shell text that runs it there
     */
    static String of(String script, TtySession tty) {
        String pane = "trap : TERM; tmux wait-for \"$0-go\"; ( trap 'exit 143' TERM; eval \"$__gs_tc\" ); "
                + "printf '%s\\n' $? >\"$1\"";
        return "command -v tmux >/dev/null 2>&1 || { printf '%s\\n' " + EnvironmentScript.quote("gpusched: " + TMUX_MISSING + "; " + TMUX_FIX)
                + " >&2; exit 127; }\n"
                // The job's own server in the per-user directory, whatever the environment it came from says.
                + "unset TMUX TMUX_TMPDIR\n"
                + "__gs_n=" + EnvironmentScript.quote(tty.name()) + "\n"
                + "__gs_d=$(mktemp -d) || exit 1\n"
                + "__gs_tc=" + EnvironmentScript.quote(script) + "; export __gs_tc\n"
                + "tmux -L \"$__gs_n\" -f /dev/null new-session -d -s \"$__gs_n\" -x 200 -y 50 -- /bin/sh -c "
                + EnvironmentScript.quote(pane) + " \"$__gs_n\" \"$__gs_d/exit\" || { rm -rf \"$__gs_d\"; exit 1; }\n"
                + "unset __gs_tc\n"
                // tmux leaves its socket when its server exits: the path, asked while the server answers, goes at the end.
                + "__gs_s=$(tmux -L \"$__gs_n\" display-message -p '#{socket_path}')\n"
                // This shell's stdout is the job's log; the server opens it again through /proc, as the same user.
                + "tmux -L \"$__gs_n\" pipe-pane -t \"$__gs_n\" \"sed -u 's/\\r\\$//' >>/proc/$$/fd/1; : >\\\"$__gs_d/piped\\\"\"\n"
                + "__gs_pp=$(tmux -L \"$__gs_n\" display-message -p -t \"$__gs_n\" '#{pane_pid}')\n"
                + "trap 'kill -TERM \"-$__gs_pp\" 2>/dev/null' TERM\n"
                + "tmux -L \"$__gs_n\" wait-for -S \"$__gs_n-go\"\n"
                // Returns when the server ends (the pane's command ended), or when a signal ended the client.
                + "while tmux -L \"$__gs_n\" has-session -t \"$__gs_n\" 2>/dev/null; do"
                + " tmux -L \"$__gs_n\" wait-for \"$__gs_n-end\" 2>/dev/null; done\n"
                // The pipe writes the pane's last output after the pane ends: the log is whole once it is done.
                + "__gs_i=0; while [ ! -e \"$__gs_d/piped\" ] && [ $__gs_i -lt 50 ]; do sleep 0.1; __gs_i=$((__gs_i+1)); done\n"
                + "__gs_r=1; [ -s \"$__gs_d/exit\" ] && read -r __gs_r <\"$__gs_d/exit\"\n"
                + "rm -rf \"$__gs_d\"\n"
                + "[ -S \"$__gs_s\" ] && ! tmux -L \"$__gs_n\" has-session 2>/dev/null && rm -f \"$__gs_s\"\n"
                + "exit \"$__gs_r\"";
    }
}
