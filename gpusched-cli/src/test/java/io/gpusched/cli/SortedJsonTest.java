package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The --json verbs print the protocol's JSON with every object's keys sorted, values exactly as written. */
class SortedJsonTest {
    @Test
    void sortsEveryObjectsKeys_atEveryDepth_keepingArraysInOrder() {
        assertEquals("{\"a\":{\"c\":\"x\\n…\",\"d\":[{\"y\":null,\"z\":1.5},2]},\"b\":1}",
                SortedJson.of("{\"b\":1,\"a\":{\"d\":[{\"z\":1.5,\"y\":null},2],\"c\":\"x\\n…\"}}"));
    }

    @Test
    void keysSortAsText_soGpuTenComesBeforeTwo_andNumbersKeepTheirText() {
        assertEquals("{\"current_mib\":{\"0\":1,\"10\":3,\"2\":2},\"elapsed_s\":1.0E-4}",
                SortedJson.of("{\"elapsed_s\":1.0E-4,\"current_mib\":{\"0\":1,\"2\":2,\"10\":3}}"));
    }
}
