package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real Unix users for the multi-user tests: commands run as them (through {@code setpriv}), a raw
 * protocol client of theirs (python3: the test's classpath is not theirs to read), and the CLI run as
 * them from a copy of the classpath they can read.
 */
final class UnixUsers {
    private UnixUsers() {
    }

    /**
     * Skips the calling test unless this is root with useradd, setpriv and python3 (what the users' commands
     * and raw client run through), then {@link #add}s the users.
     *
     * @return the users it created, for {@link #remove}
     */
    static List<String> create(String... names) throws Exception {
        assumeRoot();
        assumeSetpriv();
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "needs python3 for the users' client");
        return add(names);
    }

    /** Skips the calling test unless this is root with useradd, to create users and serve them. */
    static void assumeRoot() {
        assumeRoot("needs root to create users and serve them");
    }

    /** Skips the calling test unless this is root, {@code why} being the skip message, with useradd. */
    static void assumeRoot(String why) {
        assumeTrue("root".equals(System.getProperty("user.name")), why);
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/useradd")), "needs useradd (package passwd)");
    }

    /** Skips the calling test unless setpriv is there to run commands as the users. */
    static void assumeSetpriv() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (package util-linux)");
    }

    /**
     * Creates each user of {@code names} that does not exist yet: no home directory made (its path is
     * /home/NAME), a group of their own, /bin/sh.
     *
     * @return the users it created; those that existed are left to whoever made them
     */
    static List<String> add(String... names) throws Exception {
        List<String> created = new ArrayList<>();
        for (String u : names) {
            if (run("id", u) != 0) {
                assertEquals(0, userAdmin("/usr/sbin/useradd", "--no-create-home", "--home-dir", "/home/" + u, "--user-group",
                        "--shell", "/bin/sh", u));
                created.add(u);
            }
        }
        return created;
    }

    /** Deletes the users {@link #add} created (userdel refuses one with processes left: stop them first). */
    static void remove(List<String> created) throws Exception {
        for (String u : created) {
            userAdmin("/usr/sbin/userdel", u);
        }
    }

    /**
     * Where {@link #userAdmin} takes its lock: one file for every test JVM of the machine (surefire runs
     * this module's test classes in parallel forks).
     */
    private static final Path USER_ADMIN_LOCK = Path.of(System.getProperty("java.io.tmpdir"), "gpusched-tests-useradd.lock");

    /**
     * Runs {@code useradd} or {@code userdel} ({@code cmd}) while holding a lock that the other test JVMs
     * take for theirs: each locks /etc/passwd, /etc/group and their shadows as it changes them, and one
     * that finds another's lock fails ("cannot lock /etc/passwd; try again later") rather than waiting.
     * Each test class has users of its own (its own name prefix), so the classes need no more than this
     * to run side by side.
     *
     * @return its exit code
     */
    static int userAdmin(String... cmd) throws Exception {
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(USER_ADMIN_LOCK,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock lock = file.lock();
            try {
                return run(cmd);
            } finally {
                lock.release();
            }
        }
    }

    /** {@code cmd} run as {@code user} (their uid, gid and groups), as an argument vector to start. */
    static List<String> setpriv(String user, String... cmd) {
        List<String> argv = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups"));
        argv.addAll(List.of(cmd));
        return argv;
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
        return output(setpriv(user, "/usr/bin/python3", "-c", py, socket.toString(), request).toArray(String[]::new));
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
        List<String> argv = setpriv(user, ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-cp", classpath, Main.class.getName());
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

    /**
     * The users a test class needs ({@code @RegisterExtension static}): made before its first test, where
     * the maker may skip the class, and those made deleted after its last, even when it was skipped.
     */
    static final class ForClass implements BeforeAllCallback, AfterAllCallback {
        private final Callable<List<String>> make;
        private List<String> created = List.of();

        /** @param make checks what the users need and makes them (e.g. {@link #add}): the ones it created */
        ForClass(Callable<List<String>> make) {
            this.make = make;
        }

        /** The users {@link UnixUsers#create} makes of {@code names}. */
        static ForClass created(String... names) {
            return new ForClass(() -> create(names));
        }

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            created = make.call();
        }

        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            remove(created);
        }
    }
}
