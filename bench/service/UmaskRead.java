// The client's per-submission umask read (#24): UmaskReader.read (the status file held open, one positional
// read from its start) against GpuschedClient.processUmask (the whole file read, opened and closed each time),
// interleaved, ROUNDS rounds of N reads each; prints the microseconds per read of each, per round.
// Run:  java <bin/gpusched's flags> -cp gpusched-cli/target/gpusched.jar bench/service/UmaskRead.java [N] [ROUNDS]
// (UmaskReader is package-private: reached by reflection, as this file runs in a loader of its own.)
import io.gpusched.service.GpuschedClient;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.OptionalInt;

public class UmaskRead {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Class<?> type = Class.forName("io.gpusched.service.UmaskReader");
        Constructor<?> make = type.getDeclaredConstructor(Path.class);
        make.setAccessible(true);
        Object reader = make.newInstance(Path.of("/proc/self/status"));
        Method read = type.getDeclaredMethod("read");
        read.setAccessible(true);
        long sum = 0;
        for (int r = 1; r <= rounds; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sum += ((OptionalInt) read.invoke(reader)).orElse(0);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sum += GpuschedClient.processUmask().orElse(0);
            }
            long t2 = System.nanoTime();
            System.out.printf("round %d: held file %.1f us, whole file %.1f us per read%n", r, (t1 - t0) / 1e3 / n,
                    (t2 - t1) / 1e3 / n);
        }
        System.out.println("(checksum " + sum + ", so no read is left out)");
    }
}
