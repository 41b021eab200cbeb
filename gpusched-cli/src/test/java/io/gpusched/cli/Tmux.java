package io.gpusched.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether the tests can use tmux (Debian package {@code tmux}). */
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
}
