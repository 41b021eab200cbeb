package io.gpusched.testkit.replay;

import io.gpusched.jobs.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Parses a machine description such as {@code 4x80G}, {@code 2x24000,1x48G} or {@code 80G}. */
public final class GpuSpec {
    private GpuSpec() {
    }

    /**
     * @param text comma-separated {@code [COUNTx]SIZE} groups; SIZE as in {@code vram=} (plain MiB or
     *     a G/M suffix)
     * @return the memory of each GPU in MiB, in index order
     * @throws IllegalArgumentException when malformed
     */
    public static List<Long> parse(String text) {
        List<Long> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.strip();
            int x = p.toLowerCase(java.util.Locale.ROOT).indexOf('x');
            int count = 1;
            String size = p;
            if (x >= 0) {
                try {
                    count = Integer.parseInt(p.substring(0, x).strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad GPU count in '" + p + "' (expected e.g. 4x80G)");
                }
                size = p.substring(x + 1).strip();
            }
            OptionalLong mib = Units.parseMib(size);
            if (count < 1 || count > 1024 || mib.isEmpty()) {
                throw new IllegalArgumentException("bad GPU spec '" + p + "' (expected e.g. 4x80G or 2x24000)");
            }
            for (int i = 0; i < count; i++) {
                out.add(mib.getAsLong());
            }
        }
        return out;
    }
}
