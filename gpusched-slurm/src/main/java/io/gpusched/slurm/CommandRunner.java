package io.gpusched.slurm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one command and waits for it: how the executor calls {@code sbatch}, {@code squeue} and {@code scancel}.
 * Injected, so the executor's decisions are tested with a fake cluster and no processes.
 */
@FunctionalInterface
public interface CommandRunner {
    /**
     * @param argv the program and its arguments
     * @return its exit status and output
     * @throws UncheckedIOException when the program cannot be started
     */
    Result run(List<String> argv);

    /**
     * What a command did.
     *
     * @param exitCode its exit status
     * @param stdout its standard output, as UTF-8
     * @param stderr its standard error, as UTF-8
     */
    record Result(int exitCode, String stdout, String stderr) {
        /**
         * Checks for nulls.
         *
         * @param exitCode see {@link #exitCode()}
         * @param stdout see {@link #stdout()}
         * @param stderr see {@link #stderr()}
         */
        public Result {
            Objects.requireNonNull(stdout, "stdout");
            Objects.requireNonNull(stderr, "stderr");
        }

        /** @return whether it exited 0 */
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** @return a runner that starts real processes (standard input empty) */
    static CommandRunner system() {
        return argv -> {
            try {
                Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                // stderr on its own thread, so neither pipe can fill up and stall the command
                CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
                String out = read(p.getInputStream());
                int code = p.waitFor();
                return new Result(code, out, err.join());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + argv.get(0) + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + argv.get(0), e);
            }
        };
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
