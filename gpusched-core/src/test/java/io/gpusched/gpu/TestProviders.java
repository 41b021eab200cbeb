package io.gpusched.gpu;

import java.util.List;

/** Providers registered only on the test class path, to exercise discovery. */
public final class TestProviders {
    private TestProviders() {
    }

    public static class Present implements GpuBackendProvider {
        /** Public, as ServiceLoader requires. */
        public Present() {
        }

        @Override
        public String name() {
            return "test-present";
        }

        @Override
        public int priority() {
            return 10;
        }

        @Override
        public Availability availability(BackendOptions options) {
            return Availability.yes();
        }

        @Override
        public GpuBackend create(BackendOptions options) {
            return new GpuBackend() {
                @Override
                public GpuSnapshot snapshot() {
                    return new GpuSnapshot(List.of(GpuStat.of(0, 1000, 0)), List.of());
                }

                @Override
                public String describe() {
                    return "test-present " + options.get("tag").orElse("");
                }

                @Override
                public void close() {
                }
            };
        }
    }

    public static final class Missing implements GpuBackendProvider {
        /** Public, as ServiceLoader requires. */
        public Missing() {
        }

        @Override
        public String name() {
            return "test-missing";
        }

        @Override
        public int priority() {
            return 50;
        }

        @Override
        public Availability availability(BackendOptions options) {
            return Availability.no("test-missing: library not here");
        }

        @Override
        public GpuBackend create(BackendOptions options) {
            throw new BackendException("must not be created");
        }
    }

    public static final class Simulation extends Present {
        /** Public, as ServiceLoader requires. */
        public Simulation() {
        }

        @Override
        public String name() {
            return "test-sim";
        }

        @Override
        public int priority() {
            return -1;
        }
    }
}
