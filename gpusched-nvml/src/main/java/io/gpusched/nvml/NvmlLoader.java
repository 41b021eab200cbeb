package io.gpusched.nvml;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import io.gpusched.gpu.BackendException;

/** Loads the NVML shared library on demand and probes what it exports. Loads nothing by itself. */
final class NvmlLoader {
    /** The reason given when the library cannot be loaded; exactly this text, users and docs quote it. */
    static final String NOT_FOUND =
            "NVML not found (libnvidia-ml.so.1): is the NVIDIA driver installed? Try --sim 2 to run without a GPU.";

    private NvmlLoader() {
    }

    /**
     * The reason given when a library cannot be loaded: {@link #NOT_FOUND} for the system's; for one the user
     * named, that file, where {@link #NOT_FOUND} would send them to look for the system's.
     *
     * @param library the soname or path tried: the default, or the one given ({@code --nvml-library}, the
     *     backend's {@code library} option, or {@code GPUSCHED_NVML_LIBRARY})
     * @return the reason, one line
     */
    static String notFound(String library) {
        if (library.equals(NvmlBackendProvider.DEFAULT_LIBRARY)) {
            return NOT_FOUND;
        }
        return "NVML not found at " + library + ": no such file, or not a library this machine can load; name the"
                + " driver's libnvidia-ml.so.1 (--nvml-library or GPUSCHED_NVML_LIBRARY), or neither to use the system's";
    }

    /**
     * A loaded NVML library.
     *
     * @param nvml the mapped calls
     * @param symbols what this driver offers beyond them
     * @param file the file actually loaded, for diagnostics
     */
    record Loaded(NvmlLibrary nvml, NvmlSymbols symbols, String file) {
    }

    /**
     * @param library a soname such as {@code libnvidia-ml.so.1}, or an absolute path
     * @return the loaded library
     * @throws BackendException when it cannot be loaded ({@link #NOT_FOUND}) or is not a usable NVML
     */
    static Loaded load(String library) {
        NativeLibrary lib;
        NvmlLibrary nvml;
        try {
            lib = NativeLibrary.getInstance(library);
            nvml = Native.load(library, NvmlLibrary.class);
        } catch (UnsatisfiedLinkError e) {
            throw new BackendException(notFound(library), e);
        }
        try {
            lib.getFunction("nvmlInit_v2");
            return new Loaded(nvml, NvmlSymbols.probe(lib), String.valueOf(lib.getFile()));
        } catch (UnsatisfiedLinkError e) {
            throw new BackendException(library + " is not a usable NVML library (" + firstLine(e.getMessage())
                    + "); point the nvml backend's 'library' option at the driver's libnvidia-ml.so.1", e);
        }
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "a required symbol is missing";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
