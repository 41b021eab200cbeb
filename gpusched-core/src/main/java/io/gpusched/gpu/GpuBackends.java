package io.gpusched.gpu;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Finds GPU backends on the class path (or module path) through {@link ServiceLoader}. Holds no
 * state: every call looks again, so a plugin jar added to the class path is found without any change
 * to gpusched.
 */
public final class GpuBackends {
    private GpuBackends() {
    }

    /**
     * @return every provider visible to this class's loader and the thread's context loader, by
     *     descending priority then name
     */
    public static List<GpuBackendProvider> providers() {
        List<GpuBackendProvider> found = new ArrayList<>();
        addAll(found, ServiceLoader.load(GpuBackendProvider.class, GpuBackends.class.getClassLoader()));
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != GpuBackends.class.getClassLoader()) {
            addAll(found, ServiceLoader.load(GpuBackendProvider.class, context));
        }
        found.sort(Comparator.comparingInt(GpuBackendProvider::priority).reversed()
                .thenComparing(GpuBackendProvider::name));
        return found;
    }

    /**
     * Creates the backend with the given name.
     *
     * @param name provider name, e.g. {@code nvml}
     * @param options options for its factory
     * @return an open backend
     * @throws BackendException if no provider has that name (the message lists those found), if it
     *     is not available here (the message says why), or if creating it fails
     */
    public static GpuBackend load(String name, BackendOptions options) {
        List<GpuBackendProvider> all = providers();
        GpuBackendProvider provider = all.stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new BackendException("unknown GPU backend '" + name + "'; found: " + names(all)));
        GpuBackendProvider.Availability availability = provider.availability(options);
        if (!availability.available()) {
            throw new BackendException(availability.reason());
        }
        return provider.create(options);
    }

    /**
     * Creates the highest-priority backend that is available here. Providers with a negative priority
     * (simulations) are never chosen, so a machine without a GPU never silently runs jobs on
     * pretend hardware.
     *
     * @param options options for the chosen factory
     * @return an open backend
     * @throws BackendException if none is available; the message gives each provider's reason
     */
    public static GpuBackend detect(BackendOptions options) {
        List<GpuBackendProvider> all = providers();
        List<String> reasons = new ArrayList<>();
        for (GpuBackendProvider p : all) {
            if (p.priority() < 0) {
                continue;
            }
            GpuBackendProvider.Availability a = p.availability(options);
            if (a.available()) {
                return p.create(options);
            }
            reasons.add(a.reason());
        }
        if (reasons.isEmpty()) {
            throw new BackendException("no GPU backend found (providers on the class path: " + names(all)
                    + "); add gpusched-nvml, or try --sim 2 to run without a GPU.");
        }
        return fail(String.join("; ", reasons));
    }

    private static GpuBackend fail(String message) {
        throw new BackendException(message);
    }

    private static void addAll(List<GpuBackendProvider> into, ServiceLoader<GpuBackendProvider> loader) {
        java.util.Iterator<GpuBackendProvider> it = loader.iterator();
        while (true) {
            GpuBackendProvider p;
            try {
                if (!it.hasNext()) {
                    return;
                }
                p = it.next();
            } catch (java.util.ServiceConfigurationError e) {
                // One broken plugin jar must not hide the working backends.
                continue;
            }
            if (into.stream().noneMatch(q -> q.getClass().equals(p.getClass()))) {
                into.add(p);
            }
        }
    }

    private static String names(List<GpuBackendProvider> all) {
        return all.isEmpty() ? "none" : all.stream().map(GpuBackendProvider::name).collect(Collectors.joining(", "));
    }
}
