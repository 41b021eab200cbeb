package io.gpusched.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Request writes its equality out (its first plan would otherwise link the record's through ObjectMethods at
 * every start): it must be exactly what the record would make, hash values included, so maps keyed by
 * requests iterate as before.
 */
class RequestEqualityTest {
    @Test
    void equalsAndHashCodeAreWhatTheRecordWouldMake() throws Throwable {
        MethodHandle hash = RecordMethods.of(Request.class, "hashCode");
        MethodHandle eq = RecordMethods.of(Request.class, "equals");
        List<Request> requests = List.of(Request.declared(8000, 1), Request.declared(8000, 2), Request.undeclared(1),
                Request.declared(8000, 1).pinnedTo(Set.of(0, 1)), Request.share(GpuShare.parse("0.5").orElseThrow()),
                new Request(OptionalLong.of(8000), 1, Optional.of(Set.of(1))));
        for (Request a : requests) {
            assertEquals((int) hash.invoke(a), a.hashCode(), a.toString());
            for (Request b : requests) {
                assertEquals((boolean) eq.invoke(a, b), a.equals(b), a + " vs " + b);
            }
            assertEquals((boolean) eq.invoke(a, "not a request"), a.equals("not a request"));
            assertEquals(a, new Request(a.vramMib(), a.gpus(), a.pinned(), a.share()));
        }
    }

    @Test
    void gpuViewsAndTenantsCompareAndHashAsTheRecordWould() throws Throwable {
        MethodHandle viewHash = RecordMethods.of(GpuView.class, "hashCode");
        MethodHandle viewEq = RecordMethods.of(GpuView.class, "equals");
        MethodHandle tenantHash = RecordMethods.of(Tenant.class, "hashCode");
        MethodHandle tenantEq = RecordMethods.of(Tenant.class, "equals");
        List<Tenant> tenants = List.of(new Tenant("a#0", OptionalLong.of(100), 50, 60), new Tenant("a#0", OptionalLong.empty(), 50, 60),
                new Tenant("b#0", OptionalLong.of(100), 51, 60));
        for (Tenant a : tenants) {
            assertEquals((int) tenantHash.invoke(a), a.hashCode(), a.toString());
            for (Tenant b : tenants) {
                assertEquals((boolean) tenantEq.invoke(a, b), a.equals(b), a + " vs " + b);
            }
        }
        List<GpuView> views = List.of(new GpuView(0, 24000, 100, 0, List.of(tenants.get(0)), true, false, java.util.OptionalInt.of(5)),
                new GpuView(0, 24000, 100, 0, List.of(tenants.get(1)), true, false, java.util.OptionalInt.of(5)),
                new GpuView(0, 24000, 100, 0, List.of(tenants.get(0)), true, true, java.util.OptionalInt.of(5)),
                new GpuView(1, 24000, 100, 0, List.of(), true, false, java.util.OptionalInt.empty()));
        for (GpuView a : views) {
            assertEquals((int) viewHash.invoke(a), a.hashCode(), a.toString());
            for (GpuView b : views) {
                assertEquals((boolean) viewEq.invoke(a, b), a.equals(b), a + " vs " + b);
            }
        }
    }
}
