package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An empty (or blank) value for an option that names a file, a directory, a command, a user or a group is a
 * usage error naming the option and its fix (exit 2), before anything runs: {@code --on-finish ''} was taken
 * and ran nothing, {@code --events ''} said {@code cannot write : : Is a directory}, {@code --socket ''} looked
 * for a daemon at {@code ""} and {@code queue --log-dir ''} at {@code ./gpusched.sock} (exit 1, blaming the
 * daemon), {@code serve --admin-group ''} served with an admin group of no name. Each row runs the real
 * command line ({@link Cli#run}) with a real jobs file, the value typed both as a word and after {@code =}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmptyOptionValueTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(List<String> args) {
        return new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(args.toArray(String[]::new));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "RUN|--on-finish|''|gpusched: --on-finish needs a command, got '': give one, or leave --on-finish out",
        "RUN|--on-finish|'  '|gpusched: --on-finish needs a command, got '  ': give one, or leave --on-finish out",
        "RUN|--events|''|gpusched: --events needs a file (or - for standard output), got '': give one, or leave --events out",
        "RUN|--requirements|''|gpusched: --requirements needs a file, got '': give one, or leave --requirements out",
        "RUN|--nvml-library|''|gpusched: --nvml-library needs a path, got '': give one, or leave --nvml-library out",
        "RUN|--backend|''|gpusched: --backend needs a name, got '': give one, or leave --backend out",
        "RUN|--sim-mib|''|gpusched: --sim-mib needs memory sizes, e.g. 24000 or 24000,80G, got '': give one, or leave"
                + " --sim-mib out",
        "SERVE|--admin-group|''|gpusched: --admin-group needs a group name, got '': give one, or leave --admin-group out",
        "SERVE|--socket|''|gpusched: --socket needs a path, got '': give one, or leave --socket out",
        "SERVE|--config|''|gpusched: --config needs a file, got '': give one, or leave --config out",
        "SLURM|--events|''|gpusched: --events needs a file (or - for standard output), got '': give one, or leave --events"
                + " out",
        "SLURM|--partition|''|gpusched: --partition needs a name, got '': give one, or leave --partition out",
        "submit|--output|''|gpusched: --output needs a path, got '': give one, or leave --output out",
        "submit|--socket|''|gpusched: --socket needs a path, got '': give one, or leave --socket out",
        "queue|--log-dir|''|gpusched: --log-dir needs a directory, got '': give one, or leave --log-dir out",
        "queue|--user|''|gpusched: --user needs a user name or me, got '': give one, or leave --user out",
        "status|--log-dir|''|gpusched status: --log-dir needs a directory, got '': give one, or leave --log-dir out",
        "simulate|--save-journal|''|gpusched: --save-journal needs a file, got '': give one, or leave"
                + " --save-journal out",
    })
    void anEmptyValueIsAUsageErrorNamingTheOptionAndItsFix(String where, String option, String value, String message)
            throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        Path logs = dir.resolve("logs");
        for (boolean joined : new boolean[] {false, true}) {
            List<String> args = new ArrayList<>(switch (where) {
                case "RUN" -> List.of(jobs.toString(), "--sim", "1", "--log-dir", logs.toString());
                case "SERVE" -> List.of("serve", "--sim", "1", "--log-dir", logs.toString());
                case "SLURM" -> List.of(jobs.toString(), "--executor", "slurm", "--log-dir", logs.toString());
                case "simulate" -> List.of("simulate", jobs.toString());
                default -> List.of(where);
            });
            args.addAll(joined ? List.of(option + "=" + value) : List.of(option, value));
            if (where.equals("submit")) {
                args.addAll(List.of("--", "true"));
            }
            if (where.equals("SERVE") && !option.equals("--config")) {
                args.addAll(List.of("--config", "/dev/null"));
            }
            if (where.equals("SERVE") && !option.equals("--socket")) {
                args.addAll(List.of("--socket", dir.resolve("s.sock").toString()));
            }
            out.reset();
            err.reset();
            assertEquals(2, run(args), args + ": " + err.toString(StandardCharsets.UTF_8));
            assertEquals(message + "\n", err.toString(StandardCharsets.UTF_8), args.toString());
            assertTrue(Files.notExists(logs), "nothing ran: " + args);
        }
    }

    @Test
    void aDashForEventsAndARealCommandForOnFinishAreStillTaken() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        CliArgs a = CliArgs.parse(jobs.toString(), "--events", "-", "--on-finish", "true");
        assertEquals(java.util.Optional.of("-"), a.events());
        assertEquals(java.util.Optional.of("true"), a.onFinish());
    }
}
