package io.gpusched.slurm;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * CUDA OOM in a job's log tail, and the next attempt's declaration. A copy of core's package-private
 * {@code engine.Verdicts} rules (same signatures, same 16 KiB tail, same ⌈1.25 ×⌉ bump), kept here rather than
 * widening the engine's API while it is being rebuilt; {@code OomCheckTest} pins them to the same examples.
 */
final class OomCheck {
    static final int TAIL_BYTES = 16 * 1024;
    private static final List<String> SIGNATURES = List.of("cuda out of memory", "torch.outofmemoryerror",
            "cuda error: out of memory", "cuda_error_out_of_memory", "cudaerrormemoryallocation", "resource_exhausted");

    private OomCheck() {
    }

    static boolean looksLikeOom(String tail) {
        String lower = tail.toLowerCase(Locale.ROOT);
        return SIGNATURES.stream().anyMatch(lower::contains);
    }

    static String tail(Path log) {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            long from = Math.max(0, f.length() - TAIL_BYTES);
            byte[] b = new byte[(int) (f.length() - from)];
            f.seek(from);
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** ⌈1.25 × max(peak, declared)⌉, strictly above the declaration; empty with nothing to bump from. */
    static OptionalLong bump(OptionalLong declaredMib, long peakMib) {
        long base = Math.max(peakMib, declaredMib.orElse(0));
        if (base <= 0) {
            return OptionalLong.empty();
        }
        long bumped = (base * 5 + 3) / 4;
        if (declaredMib.isPresent() && bumped <= declaredMib.getAsLong()) {
            bumped = (declaredMib.getAsLong() * 5 + 3) / 4;
        }
        return OptionalLong.of(bumped);
    }
}
