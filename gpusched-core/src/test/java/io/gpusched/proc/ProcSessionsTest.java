package io.gpusched.proc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session scanner every driver uses, over a {@code /proc} laid out by the test, and over this machine's. */
class ProcSessionsTest {
    @TempDir
    Path proc;

    /** Writes {@code /proc/<pid>/stat} with the given state, session and start time. */
    private void process(long pid, String comm, char state, long session, long startTicks) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        StringBuilder stat = new StringBuilder(pid + " (" + comm + ") " + state + " 1 " + session + " " + session);
        for (int field = 4; field < 19; field++) {
            stat.append(" 0");
        }
        Files.writeString(dir.resolve("stat"), stat.append(' ').append(startTicks).append(" 0 0\n").toString());
    }

    @Test
    void aSessionsMembersAreItsLiveProcesses_zombiesLeftOut() throws IOException {
        process(100, "python", 'S', 100, 5);
        process(101, "worker", 'R', 100, 6);
        process(102, "gone", 'Z', 100, 7);
        process(200, "other", 'S', 200, 8);
        Files.createDirectories(proc.resolve("self"));
        assertEquals(Set.of(100L, 101L), new HashSet<>(new ProcSessions(proc).members(100)));
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() throws IOException {
        process(300, "a) b (c", 'S', 42, 12345);
        assertEquals(Optional.of(new ProcStat(false, 42, 12345)), new ProcSessions(proc).stat(300));
        assertEquals(OptionalLong.of(42), new ProcSessions(proc).sessionOf(300));
    }

    @Test
    void theKernelsAndInitsSessionsHaveNoMembers() throws IOException {
        process(1, "init", 'S', 1, 1);
        process(2, "kthreadd", 'S', 0, 1);
        ProcSessions sessions = new ProcSessions(proc);
        assertEquals(List.of(), sessions.members(1));
        assertEquals(List.of(), sessions.members(0));
    }

    @Test
    void aProcessThatIsGoneHasNoStat() {
        assertEquals(Optional.empty(), new ProcSessions(proc).stat(999));
        assertEquals(List.of(), new ProcSessions(proc.resolve("missing")).pids());
    }

    @Test
    void thisJvmIsAMemberOfItsOwnSession() {
        ProcSessions system = ProcSessions.system();
        long pid = ProcessHandle.current().pid();
        long session = system.sessionOf(pid).orElseThrow();
        assertTrue(session <= 1 || system.members(session).contains(pid), "session " + session);
    }
}
