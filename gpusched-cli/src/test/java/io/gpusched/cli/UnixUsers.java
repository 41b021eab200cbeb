package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real Unix users for the multi-user tests: commands run as them (through {@code setpriv}), a raw
 * protocol client of theirs (python3: the test's classpath is not theirs to read), and the CLI run as
 * them from a copy of the classpath they can read.
 */
final class UnixUsers {
    private UnixUsers() {
    }

    static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    static String output(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out.strip();
    }

    /** One request as a user, through a plain socket client run as that user; the answer line. */
    static String as(String user, Path socket, String request) throws Exception {
        String py = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
                + " s.sendall(sys.argv[2].encode()+b'\\n'); print(s.makefile().readline().strip())";
        return output("/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "/usr/bin/python3", "-c", py,
                socket.toString(), request);
    }

    /** The CLI's classes and jars, copied where the test's users can read them (the build's are root's). */
    static String userClasspath(Path dir) throws Exception {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path from = Path.of(e);
            String name = from.getFileName().toString();
            boolean classes = Files.isDirectory(from) && e.endsWith("target" + java.io.File.separator + "classes");
            if (!classes && !(name.endsWith(".jar") && (name.startsWith("gpusched-") || name.startsWith("jackson-core")))) {
                continue;
            }
            Path to = dir.resolve("cp" + n++ + (classes ? "" : ".jar"));
            try (var files = Files.walk(from)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, to.resolve(from.relativize(f).toString()));
                }
            }
            entries.add(to.toString());
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    record Result(int code, String out, String err) {
    }

    /** {@code gpusched ARGS} run as {@code user} in {@code cwd}: a real client process of theirs. */
    static Result asUser(String user, String classpath, Path cwd, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user,
                "--init-groups", ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-cp", classpath, Main.class.getName()));
        argv.addAll(List.of(args));
        return toResult(ServeDaemon.result(new ProcessBuilder(argv).directory(cwd.toFile()).start()));
    }

    static Result toResult(ServeDaemon.Result r) {
        return new Result(r.code(), r.out(), r.err());
    }

    /** A directory of the user's own, as a home would be. */
    static Path ownDir(String user, Path path) throws Exception {
        Files.createDirectories(path);
        assertEquals(0, run("chown", user + ":" + user, path.toString()));
        return path;
    }
}
