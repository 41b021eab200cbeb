package io.gpusched.gpu;

import java.util.Map;
import java.util.Optional;

/**
 * String options handed to a backend factory, e.g. {@code gpus=2} for {@code sim} or
 * {@code library=/opt/nvidia/libnvidia-ml.so.1} for {@code nvml}. Each provider documents its keys.
 *
 * @param values option name to value
 */
public record BackendOptions(Map<String, String> values) {
    /**
     * Copies the map.
     *
     * @param values see {@link #values()}
     */
    public BackendOptions {
        values = Map.copyOf(values);
    }

    /** @return no options */
    public static BackendOptions none() {
        return new BackendOptions(Map.of());
    }

    /**
     * @param key option name
     * @param value option value
     * @return options holding exactly that one entry
     */
    public static BackendOptions of(String key, String value) {
        return new BackendOptions(Map.of(key, value));
    }

    /**
     * @param key option name
     * @return its value when given
     */
    public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
    }
}
