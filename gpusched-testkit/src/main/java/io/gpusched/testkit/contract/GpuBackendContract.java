package io.gpusched.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link GpuBackend} must show, as JUnit 5 tests. A backend plugin author extends
 * this class in their own test sources and implements {@link #createBackend()}; every test here then
 * runs against their backend:
 *
 * <pre>{@code
 * class MyBackendContractTest extends GpuBackendContract {
 *     @Override
 *     protected GpuBackend createBackend() {
 *         return new MyBackend(fixtureWithTwoGpusAndAProcess());
 *     }
 * }
 * }</pre>
 *
 * <p>The fixture must be <em>quiescent</em>: at least one GPU, ideally a compute process or two, and
 * nothing changing while a test runs, so that two snapshots in a row can be compared. Each test gets
 * a fresh backend from {@link #createBackend()} and closes it afterwards.
 *
 * <p>The rules checked, which the scheduler relies on:
 * <ul>
 *   <li>GPU indices are non-negative and unique; UUIDs, where known, are unique and not blank;
 *       names are not blank;</li>
 *   <li>{@code usedMib <= totalMib} for every GPU, and no process holds more than its GPU's total
 *       (a backend that cannot know a process's memory reports 0, never a huge number);</li>
 *   <li>utilisation, where known, is 0–100;</li>
 *   <li>processes reference only GPUs in the same snapshot, each (GPU, pid) pair at most once;</li>
 *   <li>{@link GpuBackend#describe()} is not blank, and {@link GpuBackend#jobEnvironment()} has no
 *       blank names or values;</li>
 *   <li>two snapshots with nothing changing in between are equal;</li>
 *   <li>{@link GpuBackend#close()} is idempotent and never throws. After close, {@code snapshot()}
 *       either still works or throws {@link IllegalStateException} or {@link BackendException}; nothing
 *       else (no JNA error, no crash, no {@code NullPointerException}).</li>
 * </ul>
 *
 * <p>This class lives in {@code gpusched-testkit}'s main sources and uses the JUnit Jupiter API, which
 * the testkit declares as an optional dependency: add {@code junit-jupiter} to your test scope.
 */
public abstract class GpuBackendContract {
    private GpuBackend backend;

    /** For subclasses. */
    protected GpuBackendContract() {
    }

    /**
     * Creates the backend under test over a quiescent fixture with at least one GPU. Called once per
     * test; the contract closes what it returns.
     *
     * @return a new, open backend
     */
    protected abstract GpuBackend createBackend();

    /** Opens a fresh backend for the test. */
    @BeforeEach
    final void openBackend() {
        backend = createBackend();
        assertNotNull(backend, "createBackend() must return a backend");
    }

    /** Closes the test's backend (close is idempotent, so tests may have closed it already). */
    @AfterEach
    final void closeBackend() {
        if (backend != null) {
            backend.close();
        }
    }

    /** @return the backend of the running test */
    protected final GpuBackend backend() {
        return backend;
    }

    @Test
    void fixtureHasAtLeastOneGpu() {
        assertFalse(backend.snapshot().gpus().isEmpty(),
                "createBackend() must expose at least one GPU, or the other checks prove nothing");
    }

    @Test
    void describeIsNotBlank() {
        assertFalse(backend.describe().isBlank(), "describe() must say what the backend is");
    }

    @Test
    void gpuIndicesAreUniqueAndNotNegative() {
        List<GpuStat> gpus = backend.snapshot().gpus();
        Set<Integer> seen = new HashSet<>();
        for (GpuStat g : gpus) {
            assertTrue(g.index() >= 0, "negative index: " + g);
            assertTrue(seen.add(g.index()), "duplicate index: " + g);
        }
    }

    @Test
    void knownUuidsAreUniqueAndNotBlank() {
        Set<String> seen = new HashSet<>();
        for (GpuStat g : backend.snapshot().gpus()) {
            g.uuid().ifPresent(uuid -> {
                assertFalse(uuid.isBlank(), "blank UUID: " + g);
                assertTrue(seen.add(uuid), "duplicate UUID: " + g);
            });
        }
    }

    @Test
    void gpuNamesAreNotBlank() {
        backend.snapshot().gpus().forEach(g -> assertFalse(g.name().isBlank(), "blank name: " + g));
    }

    @Test
    void usedMemoryNeverExceedsTotal() {
        for (GpuStat g : backend.snapshot().gpus()) {
            assertTrue(g.usedMib() <= g.totalMib(), "usedMib > totalMib: " + g);
        }
    }

    @Test
    void utilisationIsAPercentageWhenKnown() {
        for (GpuStat g : backend.snapshot().gpus()) {
            g.utilPercent().ifPresent(u -> assertTrue(u >= 0 && u <= 100, "utilisation outside 0-100: " + g));
        }
    }

    @Test
    void processesReferenceOnlyGpusInTheSnapshot() {
        GpuSnapshot s = backend.snapshot();
        Set<Integer> indices = s.gpus().stream().map(GpuStat::index).collect(Collectors.toSet());
        for (GpuProcess p : s.processes()) {
            assertTrue(indices.contains(p.gpu()), "process on a GPU not in the snapshot: " + p);
        }
    }

    @Test
    void noProcessHoldsMoreThanItsGpu() {
        GpuSnapshot s = backend.snapshot();
        for (GpuProcess p : s.processes()) {
            s.gpu(p.gpu()).ifPresent(g -> assertTrue(p.usedMib() <= g.totalMib(),
                    "process holds more than its GPU's total (unknown memory must be 0): " + p + " on " + g));
        }
    }

    @Test
    void eachProcessAppearsOncePerGpu() {
        Set<String> seen = new HashSet<>();
        for (GpuProcess p : backend.snapshot().processes()) {
            assertTrue(seen.add(p.gpu() + "/" + p.pid()), "process listed twice on one GPU: " + p);
        }
    }

    @Test
    void successiveSnapshotsAreEqualWhenNothingChanges() {
        GpuSnapshot first = backend.snapshot();
        GpuSnapshot second = backend.snapshot();
        assertEquals(first.gpus(), second.gpus(), "GPUs changed between two snapshots of a quiescent fixture");
        assertEquals(Set.copyOf(first.processes()), Set.copyOf(second.processes()),
                "processes changed between two snapshots of a quiescent fixture");
    }

    @Test
    void jobEnvironmentHasNoBlankNamesOrValues() {
        Map<String, String> env = backend.jobEnvironment();
        assertNotNull(env, "jobEnvironment() must not return null");
        env.forEach((k, v) -> {
            assertFalse(k == null || k.isBlank(), "blank variable name in jobEnvironment()");
            assertNotNull(v, "null value for " + k);
        });
    }

    @Test
    void closeIsIdempotent() {
        assertDoesNotThrow(backend::close);
        assertDoesNotThrow(backend::close);
    }

    @Test
    void snapshotAfterCloseWorksOrFailsCleanly() {
        backend.close();
        GpuSnapshot after;
        try {
            after = backend.snapshot();
        } catch (IllegalStateException | BackendException expected) {
            assertNotNull(expected.getMessage(), "the exception should say what happened");
            return;
        } catch (RuntimeException | Error e) {
            fail("snapshot() after close must work or throw IllegalStateException/BackendException, threw " + e, e);
            return;
        }
        assertNotNull(after, "snapshot() after close returned null");
    }
}
