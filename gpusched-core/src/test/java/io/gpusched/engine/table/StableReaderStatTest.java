package io.gpusched.engine.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.alloc.RecordMethods;
import java.lang.invoke.MethodHandle;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** StableReader.Stat writes its equality out (every start compares two): exactly what the record would make. */
class StableReaderStatTest {
    @Test
    void equalsAndHashCodeAreWhatTheRecordWouldMake() throws Throwable {
        MethodHandle hash = RecordMethods.of(StableReader.Stat.class, "hashCode");
        MethodHandle eq = RecordMethods.of(StableReader.Stat.class, "equals");
        List<StableReader.Stat> stats = List.of(new StableReader.Stat(10, FileTime.fromMillis(5), "(dev=1,ino=2)"),
                new StableReader.Stat(11, FileTime.fromMillis(5), "(dev=1,ino=2)"),
                new StableReader.Stat(10, FileTime.fromMillis(6), "(dev=1,ino=2)"),
                new StableReader.Stat(10, FileTime.fromMillis(5), null), new StableReader.Stat(10, null, "(dev=1,ino=3)"));
        for (StableReader.Stat a : stats) {
            assertEquals((int) hash.invoke(a), a.hashCode(), a.toString());
            for (StableReader.Stat b : stats) {
                assertEquals((boolean) eq.invoke(a, b), a.equals(b), a + " vs " + b);
            }
            assertEquals(a, new StableReader.Stat(a.size(), a.modified(), a.fileKey()));
        }
    }
}
