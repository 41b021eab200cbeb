package io.gpusched.protocol;

import io.gpusched.gpu.GpuStat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One GPU as the backend last reported it, in a {@code queue} answer's {@code gpus}; memory in MiB.
 *
 * @param index its index
 * @param uuid its device UUID when known
 * @param name its product name
 * @param pciBusId its PCI bus id when known
 * @param totalMib its memory
 * @param usedMib memory in use by every process on it
 * @param utilPercent how busy it is, 0 to 100, when it reports that
 * @param healthy false when the backend lost it
 */
public record GpuRow(int index, Optional<ListText> uuid, ListText name, Optional<ListText> pciBusId, long totalMib,
                     long usedMib, OptionalInt utilPercent, boolean healthy) {
    /**
     * Checks for nulls.
     *
     * @param index see {@link #index()}
     * @param uuid see {@link #uuid()}
     * @param name see {@link #name()}
     * @param pciBusId see {@link #pciBusId()}
     * @param totalMib see {@link #totalMib()}
     * @param usedMib see {@link #usedMib()}
     * @param utilPercent see {@link #utilPercent()}
     * @param healthy see {@link #healthy()}
     */
    public GpuRow {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(utilPercent, "utilPercent");
    }

    /**
     * @param g a GPU as the backend reported it
     * @return its row, texts cut to {@link ProtocolCodec#LIST_TEXT_CHARS}
     */
    public static GpuRow listed(GpuStat g) {
        int max = ProtocolCodec.LIST_TEXT_CHARS;
        return new GpuRow(g.index(), g.uuid().map(u -> ListText.cut(u, max)), ListText.cut(g.name(), max),
                g.pciBusId().map(p -> ListText.cut(p, max)), g.totalMib(), g.usedMib(), g.utilPercent(), g.healthy());
    }
}
