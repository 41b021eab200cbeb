package io.gpusched.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A journal's lines read back to be looked at, not run: the file is only read (never created, locked or
 * written), so it may be read beside a live scheduler. Damaged lines are skipped as the scheduler's own
 * load skips them, with one warning per kind; a last line without its line end is left out silently, since
 * a scheduler may be writing it at that moment.
 *
 * @param entries every good line's event and time, in file order
 * @param warnings one-line warnings about skipped lines; empty when clean
 */
public record JournalEntries(List<JournalEntry> entries, List<String> warnings) {
    /**
     * Copies the lists.
     *
     * @param entries see {@link #entries()}
     * @param warnings see {@link #warnings()}
     */
    public JournalEntries {
        entries = List.copyOf(entries);
        warnings = List.copyOf(warnings);
    }

    /**
     * @param path a {@code journal.jsonl}
     * @return its entries and warnings
     * @throws IOException only if the file cannot be opened or read (missing, no permission)
     */
    public static JournalEntries read(Path path) throws IOException {
        List<JournalEntry> out = new ArrayList<>();
        JournalReader.Result r = JournalReader.readWholeLines(path, new JournalCodec(), out::add);
        return new JournalEntries(out, r.warnings());
    }
}
