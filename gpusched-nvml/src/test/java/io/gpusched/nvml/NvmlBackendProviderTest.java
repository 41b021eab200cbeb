package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider.Availability;
import io.gpusched.gpu.GpuBackends;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvmlBackendProviderTest {
    private static final String EXPECTED_NOT_FOUND =
            "NVML not found (libnvidia-ml.so.1): is the NVIDIA driver installed? Try --sim 2 to run without a GPU.";

    @TempDir
    Path dir;

    private final NvmlBackendProvider provider = new NvmlBackendProvider(name -> null);

    @Test
    void isNamedNvmlAndOutranksSimulations() {
        assertEquals("nvml", provider.name());
        assertTrue(provider.priority() > 0);
    }

    @Test
    void withoutTheDriversLibraryTheMessageIsTheExactOneDocsQuote() {
        // Asked of the loader's wording: in this JVM a fake NVML of that soname may be loaded already.
        assertEquals(EXPECTED_NOT_FOUND, NvmlLoader.notFound("libnvidia-ml.so.1"));
    }

    @Test
    void aMissingLibraryTheUserNamedIsNamedInTheMessage_notTheSystemsOne() {
        String named = dir.resolve("nope/libnvidia-ml.so.1").toString();
        Availability a = provider.availability(BackendOptions.of("library", named));
        assertFalse(a.available());
        assertEquals("NVML not found at " + named + ": no such file, or not a library this machine can load; name the"
                + " driver's libnvidia-ml.so.1 (--nvml-library or GPUSCHED_NVML_LIBRARY), or neither to use the system's",
                a.reason());
        Availability fromEnvironment = new NvmlBackendProvider(v -> v.equals("GPUSCHED_NVML_LIBRARY") ? named : null)
                .availability(BackendOptions.none());
        assertEquals(a.reason(), fromEnvironment.reason());
    }

    @Test
    void creatingWithAMissingLibraryThrowsTheSameMessage() {
        String named = dir.resolve("absent.so").toString();
        BackendException e = assertThrows(BackendException.class,
                () -> provider.create(BackendOptions.of("library", named)));
        assertEquals(NvmlLoader.notFound(named), e.getMessage());
    }

    @Test
    void aLibraryThatIsNotNvmlIsUnavailableWithAReason() {
        Availability a = provider.availability(BackendOptions.of("library", "libc.so.6"));
        assertFalse(a.available());
        assertTrue(a.reason().contains("not a usable NVML library"), a.reason());
    }

    @Test
    void fakeLibraryIsAvailable() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        assertEquals(Availability.yes(), provider.availability(BackendOptions.of("library", fake.library())));
    }

    @Test
    void availabilityDoesNotInitialiseNvml() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        provider.availability(BackendOptions.of("library", fake.library()));
        assertEquals(0, fake.initCalls());
    }

    @Test
    void serviceLoaderFindsTheProviderByName() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        try (GpuBackend backend = GpuBackends.load("nvml", BackendOptions.of("library", fake.library()))) {
            assertEquals(2, backend.snapshot().gpus().size());
        }
    }

    @Test
    void libraryOptionWinsOverTheEnvironmentVariable() {
        NvmlBackendProvider p = new NvmlBackendProvider(Map.of("GPUSCHED_NVML_LIBRARY", "/from/env.so")::get);
        assertEquals("/from/option.so", p.library(BackendOptions.of("library", "/from/option.so")));
    }

    @Test
    void environmentVariableWinsOverTheSoname() {
        NvmlBackendProvider p = new NvmlBackendProvider(Map.of("GPUSCHED_NVML_LIBRARY", "/from/env.so")::get);
        assertEquals("/from/env.so", p.library(BackendOptions.none()));
    }

    @Test
    void defaultIsTheDriverSoname() {
        assertEquals("libnvidia-ml.so.1", provider.library(BackendOptions.none()));
    }

    @Test
    void versionMismatchAtInitFailsCreateNamingTheCause() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir).state("fail fn=nvmlInit_v2 rc=18");
        BackendException e = assertThrows(BackendException.class,
                () -> provider.create(BackendOptions.of("library", fake.library())));
        assertTrue(e.getMessage().contains("driver/library version mismatch"), e.getMessage());
        assertTrue(e.getMessage().contains("reboot"), e.getMessage());
    }

    @Test
    void unloadedDriverAtInitFailsCreateNamingTheCause() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir).state("fail fn=nvmlInit_v2 rc=9");
        BackendException e = assertThrows(BackendException.class,
                () -> provider.create(BackendOptions.of("library", fake.library())));
        assertTrue(e.getMessage().contains("kernel driver is not loaded"), e.getMessage());
    }
}
