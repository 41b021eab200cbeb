package io.gpusched.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code conda} for tests, a few lines of {@code sh}: {@code conda run -n ENV --no-capture-output CMD...}
 * (or {@code -p PATH}) appends its arguments to a file, one per line and a line {@code --} after them,
 * then runs CMD as its child (as the real one does) with {@code CONDA_DEFAULT_ENV=ENV}, and exits with
 * its status. Anything else exits 2.
 */
final class FakeConda {
    private FakeConda() {
    }

    /**
     * @param bin the directory to put {@code conda} in (created), for the PATH
     * @param argv the file each call's arguments are appended to
     * @return {@code bin}
     */
    static Path install(Path bin, Path argv) throws IOException {
        Files.createDirectories(bin);
        Path conda = bin.resolve("conda");
        Files.writeString(conda, String.join("\n",
                "#!/bin/sh",
                "printf '%s\\n' \"$@\" -- >> '" + argv + "'",
                "[ \"$1\" = run ] || exit 2; shift",
                "case \"$1\" in -n|-p) env=$2; shift 2 ;; *) exit 2 ;; esac",
                "[ \"$1\" = --no-capture-output ] && shift",
                "CONDA_DEFAULT_ENV=$env; export CONDA_DEFAULT_ENV",
                "\"$@\"", ""));
        Files.setPosixFilePermissions(conda, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    /** @return each call's arguments, in call order */
    static List<List<String>> calls(Path argv) throws IOException {
        List<List<String>> calls = new ArrayList<>();
        List<String> call = new ArrayList<>();
        for (String line : Files.readAllLines(argv)) {
            if (line.equals("--")) {
                calls.add(List.copyOf(call));
                call.clear();
            } else {
                call.add(line);
            }
        }
        return calls;
    }
}
