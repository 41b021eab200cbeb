package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.model.TtySession;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Whether the tests can use tmux (Debian package {@code tmux}), and the tmux the terminal tests drive. */
final class Tmux {
    private Tmux() {
    }

    static boolean present() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String d : path.split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "tmux"))) {
                return true;
            }
        }
        return false;
    }

    /** tmux's directory for this user, where a server puts its socket (tmux -L). */
    static Path socketDir() throws Exception {
        return Path.of("/tmp", "tmux-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    /** Kills the tmux servers of the daemon's jobs 1 to {@code upTo}: a job outlives a killed daemon by design. */
    static void killJobServers(Path logs, int upTo) throws Exception {
        for (int no = 1; no <= upTo; no++) {
            kill(TtySession.of(logs, no).name());
        }
    }

    private static void kill(String server) throws Exception {
        new ProcessBuilder("tmux", "-L", server, "kill-server").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }

    /** The argv of {@code gpusched ARGS --socket SOCKET} as a process of its own. */
    static List<String> clientArgv(Path socket, String... args) {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName()));
        argv.addAll(List.of(args));
        argv.addAll(List.of("--socket", socket.toString()));
        return argv;
    }

    /** {@code argv} as one shell command line, each word single-quoted. */
    static String shellLine(List<String> argv) {
        return String.join(" ", argv.stream().map(a -> "'" + a + "'").toList());
    }

    /** A tmux server of the test's own ({@code tmux -L NAME}): the real terminal a client is driven in. */
    static final class Server {
        private final String name;

        /** @param prefix names the test; the JVM's pid makes it the test run's own */
        Server(String prefix) {
            this.name = prefix + ProcessHandle.current().pid();
        }

        /** Runs {@code tmux ARGS} against this server, which must exit 0. @return its output */
        String run(String... args) throws Exception {
            List<String> argv = new ArrayList<>(List.of("tmux", "-L", name, "-f", "/dev/null"));
            argv.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
            pb.environment().remove("TMUX");
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), "tmux " + args[0] + ": " + out);
            return out;
        }

        /** @return pane {@code t}'s screen once it shows {@code text}, or after {@code seconds} as it is then */
        String awaitScreen(String text, int seconds) throws Exception {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds); ; Thread.sleep(100)) {
                String screen = run("capture-pane", "-p", "-t", "t");
                if (screen.contains(text) || System.nanoTime() > end) {
                    return screen;
                }
            }
        }

        /** Kills the server and removes its socket. */
        void close() throws Exception {
            kill(name);
            // tmux leaves its socket when its server exits: the test's own terminal leaves none either.
            Files.deleteIfExists(socketDir().resolve(name));
        }
    }
}
