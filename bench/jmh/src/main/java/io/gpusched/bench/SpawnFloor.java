package io.gpusched.bench;

import java.util.Arrays;
import java.util.List;

/**
 * The process-spawn floor: ProcessBuilder start + wait of {@code sh -c true}, and of
 * {@code setsid sh -c true} (how jobs are launched). Prints medians in ms, one per line, as
 * {@code name value}.
 */
public final class SpawnFloor {
    private SpawnFloor() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        if (args.length > 1 && args[1].equals("setsid-only")) {
            // For CPU accounting by the caller: only the job-shaped spawn, n times.
            System.out.printf("spawn_setsid_sh_ms %.3f%n", median(List.of("setsid", "sh", "-c", "true"), n));
            return;
        }
        System.out.printf("spawn_sh_ms %.3f%n", median(List.of("sh", "-c", "true"), n));
        System.out.printf("spawn_setsid_sh_ms %.3f%n", median(List.of("setsid", "sh", "-c", "true"), n));
    }

    private static double median(List<String> cmd, int n) throws Exception {
        double[] ms = new double[n];
        for (int i = -20; i < n; i++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor();
            if (i >= 0) {
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return ms[n / 2];
    }
}
