package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every duration and size option of the command line and of serve's configuration file refuses a value that
 * is a duration (or size) but out of its range in one line naming the option, the range and the value:
 * before, {@code --age-step 3651d} said only "needs a duration like 90s, 15m, 2h or 1d", which 3651d is.
 */
class OutOfRangeValueTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "run|--age-step|3651d|gpusched: --age-step must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d), got '3651d'",
        "run|--fair-share-half-life|4000d|gpusched: --fair-share-half-life must be from 1s to 3650d (a duration like 90s,"
                + " 15m, 2h or 1d), got '4000d'",
        "run|--reserve-after|87601h|gpusched: --reserve-after must be from 0s to 3650d (a duration like 90s, 15m, 2h or"
                + " 1d), or never, got '87601h'",
        "serve|--age-step|3651d|gpusched: --age-step must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d), got"
                + " '3651d'",
        "serve|--max-job-time|3651d|gpusched: --max-job-time must be more than 0 and at most 3650d (a duration like 90s,"
                + " 15m, 2h or 1d), got '3651d'",
        "serve|--max-job-time|0|gpusched: --max-job-time must be more than 0 and at most 3650d (a duration like 90s, 15m,"
                + " 2h or 1d), got '0'",
        "serve|--max-queued-size-per-user|0|gpusched: --max-queued-size-per-user must be a size from 1M to 2147483647M"
                + " such as 512M or 2G (a plain number is MiB), got 0",
        "serve|--max-queued-size-per-user|9999999999G|gpusched: --max-queued-size-per-user must be a size from 1M to"
                + " 2147483647M such as 512M or 2G (a plain number is MiB), got 9999999999G",
        "stats|--since|3651d|gpusched stats: --since must be more than 0 and at most 3650d (a duration like 90s, 15m, 2h"
                + " or 1d), got '3651d'",
        "simulate|--default-duration|3651d|gpusched: --default-duration must be more than 0 and at most 3650d (a duration"
                + " like 90s, 15m, 2h or 1d), got '3651d'",
        "run|--sim-mib|0|gpusched: sim: mib=0 has 0, out of range: each size must be from 1 to 2147483647 MiB; use e.g."
                + " mib=24000, mib=80G or mib=24000,80G",
    })
    void anOutOfRangeValue_isOneLineNamingTheOptionTheRangeAndTheValue(String verb, String option, String value,
                                                                       String expected) throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "true\n");
        List<String> argv = new ArrayList<>();
        switch (verb) {
            case "run" -> argv.addAll(List.of(jobs.toString(), "--sim", "1", "--log-dir", dir.resolve("logs").toString()));
            case "serve" -> argv.addAll(List.of("serve", "--config", "/dev/null", "--sim", "1"));
            case "stats" -> argv.addAll(List.of("stats", "--log-dir", Files.createDirectories(dir.resolve("logs")).toString()));
            default -> argv.addAll(List.of("simulate", jobs.toString()));
        }
        argv.addAll(List.of(option, value));
        assertEquals(new ServeDaemon.Result(2, "", expected + "\n"), ServeDaemon.cli(argv.toArray(String[]::new)));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "age-step|3651d|gpusched: --age-step must be from 1s to 3650d (a duration like 90s, 15m, 2h or 1d), got '3651d'",
        "max-job-time|3651d|gpusched: --max-job-time must be more than 0 and at most 3650d (a duration like 90s, 15m, 2h"
                + " or 1d), got '3651d'",
    })
    void theConfigurationFile_refusesItInTheSameWords(String key, String value, String expected) throws Exception {
        Path config = Files.writeString(dir.resolve("gpusched.conf"), key + " = " + value + "\n");
        // The file's line is named after it, as for every value the file gives.
        assertEquals(new ServeDaemon.Result(2, "", expected + " (--" + key + " from " + config + ":1)\n"),
                ServeDaemon.cli("serve", "--config", config.toString(), "--sim", "1"));
    }
}
