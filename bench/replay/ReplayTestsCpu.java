import org.junit.platform.launcher.*;
import org.junit.platform.launcher.core.*;
import org.junit.platform.launcher.listeners.*;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/** Runs test classes in this JVM, one after the other, and prints each one's wall and process CPU time (bench/replay/tests-cpu.sh). */
public class ReplayTestsCpu {
    public static void main(String[] a) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Launcher l = LauncherFactory.create();
        for (String c : a) {
            var req = LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Class.forName(c))).build();
            var sum = new SummaryGeneratingListener();
            long t0 = System.nanoTime(), c0 = os.getProcessCpuTime();
            l.execute(req, sum);
            long wall = (System.nanoTime() - t0) / 1_000_000, cpu = (os.getProcessCpuTime() - c0) / 1_000_000;
            var s = sum.getSummary(); s.getFailures().forEach(f -> System.out.println("  FAILED " + f.getTestIdentifier().getDisplayName() + ": " + String.valueOf(f.getException()).lines().findFirst().orElse("")));
            System.out.printf("%-55s tests %d failed %d wall %7d ms process-cpu %7d ms%n", c, s.getTestsSucceededCount() + s.getTestsFailedCount(), s.getTestsFailedCount(), wall, cpu);
        }
    }
}
