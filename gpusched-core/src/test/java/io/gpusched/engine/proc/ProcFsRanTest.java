package io.gpusched.engine.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long a process has run by the kernel's clock since boot ({@link ProcFs#ranNanos}), which a restarted
 * scheduler times a job it takes up by instead of the wall clock: from a directory laid out as
 * {@code /proc} is, and from this machine's own.
 */
class ProcFsRanTest {
    @TempDir
    Path proc;

    private ProcFs withProcess(long pid, long startTicks, String uptime) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        // The command name holds a space and a parenthesis: fields count from the last ')'.
        Files.writeString(dir.resolve("stat"), pid + " (py (x)) S 1 " + pid + " " + pid
                + " 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 " + startTicks + " 1000 10 18446744073709551615\n");
        if (!uptime.isEmpty()) {
            Files.writeString(proc.resolve("uptime"), uptime);
        }
        return new ProcFs(proc);
    }

    @Test
    void aProcessHasRunItsUptimeLessItsStartTicks_atAHundredTicksASecond() throws Exception {
        ProcFs fs = withProcess(42, 12_345, "200.50 350.00\n");
        assertEquals(OptionalLong.of(Duration.ofMillis(77_050).toNanos()), fs.ranNanos(42));
    }

    @Test
    void aGoneProcess_anUnreadableOrNonsenseUptime_areUnknown_neverZeroOrNegative() throws Exception {
        assertEquals(OptionalLong.empty(), withProcess(43, 100, "").ranNanos(43), "no /proc/uptime");
        assertEquals(OptionalLong.empty(), withProcess(44, 100, "soon\n").ranNanos(44));
        assertEquals(OptionalLong.empty(), withProcess(45, 100, "-3.00 1.00\n").ranNanos(45));
        assertEquals(OptionalLong.empty(), withProcess(46, 100, "1e400 1.00\n").ranNanos(46), "beyond a long of nanos");
        assertEquals(OptionalLong.empty(), new ProcFs(proc).ranNanos(47), "no such process");
        assertEquals(OptionalLong.of(0), withProcess(48, 50_000, "200.00 1.00\n").ranNanos(48),
                "started after the uptime read (a race): just started");
    }

    @Test
    void thisJvmHasRunAsLongAsTheJdkReadsItsStartFromTheSameProc() {
        // The JDK dates the start by the boot time on the wall clock; this machine's clock does not step here.
        java.time.Instant start = ProcessHandle.current().info().startInstant().orElseThrow();
        long jdk = Duration.between(start, java.time.Instant.now()).toNanos();
        OptionalLong ran = ProcFs.system().ranNanos(ProcessHandle.current().pid());
        assertTrue(ran.isPresent(), "this machine's /proc gives it");
        assertTrue(Math.abs(ran.getAsLong() - jdk) < Duration.ofSeconds(2).toNanos(), ran + " ns against the JDK's " + jdk);
    }
}
