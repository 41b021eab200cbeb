package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code gpusched doctor}'s command line, refused before any check runs (so with no Unix users, unlike
 * {@link DoctorTest}).
 */
class DoctorCommandLineTest {
    /**
     * {@code doctor --sim --backend nvml} checked a simulated GPU and dropped the {@code --backend nvml} unsaid,
     * whichever came first; serve refuses that line, so doctor's "ok" was for a daemon that would not start.
     */
    @Test
    void doctor_simWithAnotherBackend_isRefusedAsServeRefusesIt() {
        for (String[] argv : new String[][] {
            {"doctor", "--sim", "--backend", "nvml"},
            {"doctor", "--backend=nvml", "--sim", "2"},
        }) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new DoctorCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.<String, String>of()::get).run(argv);
            assertEquals(Cli.USAGE, code, out.toString(StandardCharsets.UTF_8));
            assertEquals("gpusched: --sim and --backend nvml contradict each other; give one\n",
                    err.toString(StandardCharsets.UTF_8));
            assertEquals("", out.toString(StandardCharsets.UTF_8), "no check ran");
        }
    }
}
