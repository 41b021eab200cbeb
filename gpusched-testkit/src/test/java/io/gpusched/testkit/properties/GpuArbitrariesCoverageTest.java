package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Placement;
import io.gpusched.testkit.arbitraries.AllocationCase;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.GpuArbitraries;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Guards the generators' mix: a property that only ever sees blocked cases proves little, so each
 * outcome and each kind of GPU must come up often enough. Fixed seed, so it cannot flake.
 */
class GpuArbitrariesCoverageTest {
    private static final int N = 4000;

    @Test
    void everyOutcomeAndEveryTenantStateIsGeneratedOften() {
        SplittableRandom random = new SplittableRandom(20240601L);
        int placed = 0, blocked = 0, infeasible = 0, undeclaredRequests = 0, multiGpu = 0, exclusive = 0;
        int ramping = 0, overDeclared = 0, undeclaredTenants = 0, unhealthy = 0, bigSnapshots = 0;
        Gen<AllocationCase> cases = GpuArbitraries.allocationCases();
        for (int i = 0; i < N; i++) {
            AllocationCase c = cases.next(new SplittableRandom(random.nextLong()), 1 + i % Gen.MAX_SIZE);
            Placement outcome = c.place();
            if (outcome instanceof Placement.Placed) {
                placed++;
            } else if (outcome instanceof Placement.Blocked) {
                blocked++;
            } else {
                infeasible++;
            }
            undeclaredRequests += c.request().vramMib().isEmpty() ? 1 : 0;
            multiGpu += c.request().gpus() > 1 ? 1 : 0;
            exclusive += c.policy().exclusive() ? 1 : 0;
            bigSnapshots += c.gpus().size() > 8 ? 1 : 0;
            for (var g : c.gpus()) {
                unhealthy += g.healthy() ? 0 : 1;
                for (var t : g.tenants()) {
                    if (t.declaredMib().isEmpty()) {
                        undeclaredTenants++;
                    } else if (t.peakMib() > t.declaredMib().getAsLong()) {
                        overDeclared++;
                    } else if (t.currentMib() < t.declaredMib().getAsLong()) {
                        ramping++;
                    }
                }
            }
        }
        String mix = "placed=" + placed + " blocked=" + blocked + " infeasible=" + infeasible;
        assertTrue(placed > N / 5, mix);
        assertTrue(blocked > N / 10, mix);
        assertTrue(infeasible > N / 20, mix);
        assertTrue(undeclaredRequests > N / 10 && multiGpu > N / 10 && exclusive > N / 10 && bigSnapshots > N / 20,
                "requests and policies vary");
        assertTrue(ramping > 100 && overDeclared > 100 && undeclaredTenants > 100 && unhealthy > 100, "GPU states vary");
    }
}
