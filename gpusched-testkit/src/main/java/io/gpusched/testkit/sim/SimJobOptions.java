package io.gpusched.testkit.sim;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The flags of the simulated job, parsed exactly as {@code src/main/c/simjob.c} parses them.
 *
 * @param vramMib pretend memory per GPU at full ramp, in MiB
 * @param rampSeconds seconds to ramp linearly from 0 to {@code vramMib}
 * @param holdSeconds seconds to hold at {@code vramMib} after the ramp
 * @param exitCode exit status after a normal run, 0–255
 * @param oomMarker when present: fail with a CUDA OOM message unless this file exists (and create it)
 * @param spikeMib pretend memory during the spike window, in MiB (0: no spike)
 * @param spikeAtSeconds start of the spike window, seconds after start
 * @param spikeForSeconds length of the spike window in seconds
 * @param ignoreTerm ignore SIGTERM, so only SIGKILL stops the job
 */
record SimJobOptions(
        long vramMib,
        double rampSeconds,
        double holdSeconds,
        int exitCode,
        Optional<String> oomMarker,
        long spikeMib,
        double spikeAtSeconds,
        double spikeForSeconds,
        boolean ignoreTerm) {

    static final String USAGE = String.join("\n",
            "usage: simjob --vram MiB [--ramp s] [--hold s] [--exit-code N] [--oom-once MARKER]",
            "              [--spike MiB --spike-at s --spike-for s] [--ignore-term]",
            "Pretends to hold --vram MiB on each GPU of CUDA_VISIBLE_DEVICES (GPU 0 when unset),",
            "ramping up linearly over --ramp s (default 0.5) and holding for --hold s (default 1),",
            "reported through $GPUSCHED_SIM_DIR/<pid>.json.", "");

    private static final long MAX_MIB = 1L << 40;
    private static final Set<String> FLAGS_WITH_VALUE = Set.of(
            "--vram", "--ramp", "--hold", "--exit-code", "--oom-once", "--spike", "--spike-at", "--spike-for");
    private static final Pattern DECIMAL = Pattern.compile("(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");

    /** A command line the job cannot run with; the message names the flag. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * @param args flags as {@code --flag value} or {@code --flag=value}; {@code --help} and
     *     {@code --probe} are handled by the caller
     * @return the options
     * @throws UsageException for an unknown flag, a missing or malformed value, or no {@code --vram}
     */
    static SimJobOptions parse(List<String> args) {
        Long vram = null;
        double ramp = 0.5;
        double hold = 1.0;
        int exitCode = 0;
        String oomMarker = null;
        long spike = 0;
        double spikeAt = 0;
        double spikeFor = 0.3;
        boolean ignoreTerm = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--ignore-term")) {
                ignoreTerm = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq >= 0 ? arg.substring(0, eq) : arg;
            if (!FLAGS_WITH_VALUE.contains(name)) {
                throw new UsageException("unknown flag " + arg);
            }
            String value;
            if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException(name + " needs a value");
            }
            switch (name) {
                case "--vram" -> vram = wholeNumber(name, value, MAX_MIB);
                case "--ramp" -> ramp = seconds(name, value);
                case "--hold" -> hold = seconds(name, value);
                case "--exit-code" -> exitCode = (int) wholeNumber(name, value, 255);
                case "--oom-once" -> {
                    if (value.isEmpty()) {
                        throw new UsageException(name + " needs a file name");
                    }
                    oomMarker = value;
                }
                case "--spike" -> spike = wholeNumber(name, value, MAX_MIB);
                case "--spike-at" -> spikeAt = seconds(name, value);
                case "--spike-for" -> spikeFor = seconds(name, value);
                default -> throw new IllegalStateException("flag without a case: " + name);
            }
        }
        if (vram == null) {
            throw new UsageException("--vram is required");
        }
        return new SimJobOptions(vram, ramp, hold, exitCode, Optional.ofNullable(oomMarker), spike, spikeAt,
                spikeFor, ignoreTerm);
    }

    /** @return seconds from start to the end of the hold, when the job exits */
    double durationSeconds() {
        return rampSeconds + holdSeconds;
    }

    /**
     * @param t seconds since start
     * @return pretend MiB per GPU at that moment: the ramp, raised to the spike inside its window
     */
    long usageAt(double t) {
        long mib = vramMib;
        if (rampSeconds > 0 && t < rampSeconds) {
            mib = (long) (vramMib * (t / rampSeconds));
        }
        if (spikeMib > mib && t >= spikeAtSeconds && t < spikeAtSeconds + spikeForSeconds) {
            mib = spikeMib;
        }
        return mib;
    }

    private static long wholeNumber(String flag, String text, long max) {
        try {
            long v = Long.parseLong(text);
            if (v >= 0 && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below, with the flag's name
        }
        throw new UsageException(flag + " needs a whole number in range");
    }

    private static double seconds(String flag, String text) {
        try {
            // Double.parseDouble alone would also take "1d", "0x1p3" and "Infinity", unlike the C twin
            if (!DECIMAL.matcher(text).matches()) {
                throw new NumberFormatException(text);
            }
            double v = Double.parseDouble(text);
            if (v >= 0 && v <= 1e9) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below, with the flag's name
        }
        throw new UsageException(flag + " needs a number of seconds >= 0");
    }
}
