package io.gpusched.cli;

import io.gpusched.engine.spawn.EnvironmentScript;
import io.gpusched.event.TerminalText;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.Grant;
import io.gpusched.protocol.Answer;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code gpusched srun [options] -- CMD...}: waits in the queue like any job, then runs CMD here, in this
 * terminal (stdin, tty and Ctrl-C are the command's), with the granted GPUs in its environment, and exits
 * with its exit status. The daemon measures the command's VRAM by the run token in that environment and
 * journals its outcome like any job's. Ctrl-C (or SIGTERM, SIGHUP) while waiting withdraws the request.
 * While the command runs, Ctrl-C reaches it straight from the terminal; SIGTERM and SIGHUP sent to
 * {@code srun} itself are passed on to it as SIGTERM.
 */
final class SrunCommand {
    /** How long a finished command's client keeps trying to tell a restarting daemon how it ended. */
    private static final long REPORT_PATIENCE_MILLIS = 60_000;

    private final PrintStream out;
    private final PrintStream err;

    SrunCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] argv) {
        ClientOptions.Parsed p;
        try {
            p = ClientOptions.parse("srun", List.of(argv).subList(1, argv.length));
            if (p.help()) {
                out.print(ClientOptions.usage("srun"));
                return 0;
            }
            if (p.words().isEmpty()) {
                throw new UsageException("srun needs a command: gpusched srun [options] -- CMD...");
            }
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        String line = p.line();
        JobSpec spec;
        try {
            spec = JobSpec.parse(line);
        } catch (io.gpusched.jobs.JobSpecException e) {
            // The daemon would refuse it as well; said here before connecting, in the options' words.
            err.println("gpusched: " + ClientOptions.inOptionWords(e));
            return 1;
        }
        Path socketPath = p.socket().orElseGet(GpuschedClient::defaultSocket);
        Path cwd = Path.of("").toAbsolutePath();
        // conda= and setup= wrap the command here, as the daemon's launch wraps a submitted job's.
        return new Session(socketPath, p.quiet()).run(line, EnvironmentScript.of(spec), cwd);
    }

    /** One srun: the wait, the command, the report. */
    private final class Session {
        private final Path socket;
        private final boolean quiet;
        private final AtomicReference<GpuschedClient> client = new AtomicReference<>();
        private final AtomicReference<Process> command = new AtomicReference<>();
        private volatile int withdrawnBy;
        private volatile boolean commandPhase;
        private volatile boolean terminate;
        private volatile int jobNo;

        Session(Path socket, boolean quiet) {
            this.socket = socket;
            this.quiet = quiet;
        }

        int run(String line, String cmd, Path cwd) {
            Signals.handle("INT", () -> signal(130, false));
            Signals.handle("TERM", () -> signal(143, true));
            Signals.handle("HUP", () -> signal(129, true));
            Grant grant;
            try {
                GpuschedClient c = GpuschedClient.connect(socket);
                client.set(c);
                grant = c.srun(line, cwd, this::progress);
            } catch (ServiceException e) {
                if (withdrawnBy != 0) {
                    err.println("gpusched: srun withdrawn" + (jobNo > 0 ? "; job " + jobNo + " is cancelled" : ""));
                    return withdrawnBy;
                }
                err.println("gpusched: " + e.getMessage());
                // A unique job already queued, running or done ok: not run again, as asked (exit-code table).
                return e.code().equals("duplicate") ? ExitCodes.OK : 1;
            }
            if (withdrawnBy != 0) {
                // The signal came as the grant did: the daemon sees the connection close and ends the run.
                closeClient();
                err.println("gpusched: srun withdrawn as its GPUs were granted; job " + grant.no() + " ends");
                return withdrawnBy;
            }
            say("job " + grant.no() + " granted gpu " + grant.gpus() + " (CUDA_VISIBLE_DEVICES="
                    + grant.environment().get("CUDA_VISIBLE_DEVICES") + ")");
            ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", cmd).inheritIO().directory(cwd.toFile());
            pb.environment().putAll(grant.environment());
            int status;
            try {
                // From here a signal is the command's business: a Ctrl-C typed as it starts must not withdraw.
                commandPhase = true;
                Process p = pb.start();
                command.set(p);
                if (terminate) {
                    p.destroy();
                }
                status = waitFor(p);
            } catch (IOException e) {
                err.println("gpusched: cannot run /bin/sh: " + e.getMessage());
                status = 127;
            }
            report(grant, status);
            return status;
        }

        private int waitFor(Process p) {
            while (true) {
                try {
                    return p.waitFor();
                } catch (InterruptedException e) {
                    // not ours to stop: the command decides when it ends
                }
            }
        }

        /** Tells the daemon how the command ended, finding it again if it restarted meanwhile. */
        private void report(Grant grant, int status) {
            // On the monotonic clock: a wall clock set back a day must not keep srun retrying a day.
            long giveUp = System.nanoTime() + REPORT_PATIENCE_MILLIS * 1_000_000;
            GpuschedClient c = client.get();
            boolean attached = c != null;
            while (true) {
                try {
                    if (!attached) {
                        c = GpuschedClient.connect(socket);
                        client.set(c);
                        c.srunAttach(grant.no(), grant.token());
                        attached = true;
                    }
                    Answer.Ended r = c.srunExited(status);
                    closeClient();
                    summary(grant.no(), r);
                    return;
                } catch (ServiceException e) {
                    if (e.code().equals("not_held")) {
                        err.println("gpusched: job " + grant.no() + " was no longer held when its command ended ("
                                + e.getMessage() + "); its outcome is the daemon's");
                        closeClient();
                        return;
                    }
                    if (!e.code().equals("unreachable") || System.nanoTime() - giveUp > 0) {
                        err.println("gpusched: could not report job " + grant.no() + "'s exit status " + status + ": "
                                + e.getMessage() + " — the daemon records it once nothing of the run is left");
                        closeClient();
                        return;
                    }
                    closeClient();
                    attached = false;
                    pause();
                }
            }
        }

        private void summary(int no, Answer.Ended ended) {
            if (quiet || ended.outcome().isEmpty()) {
                return;
            }
            Answer.Outcome r = ended.outcome().get();
            StringBuilder s = new StringBuilder("job " + no + " " + r.status().journalName());
            if (r.status() != io.gpusched.model.JobStatus.OK) {
                s.append(", exit ").append(r.exitCode());
            }
            s.append(" in ").append(Math.round(r.seconds())).append("s");
            if (r.peakMib().isPresent()) {
                s.append(", peak ").append(r.peakMib().getAsLong()).append(" MiB");
                if (r.declaredMib().isPresent()) {
                    s.append(" of ").append(r.declaredMib().getAsLong()).append(" MiB declared");
                }
                s.append(JobOutputReader.verdictWords(r.verdict()));
            } else {
                s.append(", no GPU memory seen");
            }
            say(s.toString());
        }

        private void progress(GpuschedClient.Waiting w) {
            jobNo = w.no();
            if (w.position() == 0) {
                say("job " + w.no() + " queued; waiting for GPUs (Ctrl-C withdraws)");
            } else {
                // The reason is the daemon's words with names in them (after=NAME): escaped, as the queue's list is.
                say("job " + w.no() + " waits, " + w.position() + " of " + w.of() + " pending: "
                        + TerminalText.escape(w.reason()));
            }
        }

        /** A signal to srun: while waiting it withdraws the request; while the command runs, passed on or left to the tty. */
        private void signal(int exitCode, boolean forward) {
            if (commandPhase) {
                if (forward) {
                    // SIGTERM; INT needs no passing on, the terminal sent it to the command too
                    terminate = true;
                    Process p = command.get();
                    if (p != null) {
                        p.destroy();
                    }
                }
                return;
            }
            withdrawnBy = exitCode;
            closeClient();
        }

        private void closeClient() {
            GpuschedClient c = client.getAndSet(null);
            if (c != null) {
                c.close();
            }
        }

        private void say(String message) {
            if (!quiet) {
                err.println("gpusched: " + message);
            }
        }

        private void pause() {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
