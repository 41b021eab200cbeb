package io.gpusched.engine.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AppendedTest {
    @Test
    void appendingLeavesEveryEarlierListAsItWas() {
        Appended<String> a = Appended.of(List.of("a", "b"));
        Appended<String> b = a.with(List.of("c"));
        Appended<String> c = b.with(List.of("d", "e"));
        assertEquals(List.of("a", "b"), a);
        assertEquals(List.of("a", "b", "c"), b);
        assertEquals(List.of("a", "b", "c", "d", "e"), c);
        assertThrows(IndexOutOfBoundsException.class, () -> a.get(2));
    }

    @Test
    void appendingToAnOlderListDoesNotOverwriteWhatANewerOneHolds() {
        Appended<String> a = Appended.of(List.of("a"));
        Appended<String> newer = a.with(List.of("b"));
        Appended<String> fork = a.with(List.of("x"));
        assertEquals(List.of("a", "b"), newer);
        assertEquals(List.of("a", "x"), fork);
        assertEquals(List.of("a", "b", "c"), newer.with(List.of("c")));
    }

    @Test
    void manyAppendsGrowTheArrayAndKeepOrder() {
        Appended<Integer> list = Appended.of(List.of());
        List<Appended<Integer>> versions = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            list = list.with(List.of(i));
            versions.add(list);
        }
        for (int i = 0; i < 10_000; i += 997) {
            assertEquals(i + 1, versions.get(i).size());
            assertEquals(i, versions.get(i).get(i));
        }
        assertSame(list, list.with(List.of()));
    }

    @Test
    void isUnmodifiableAndRefusesNulls() {
        Appended<String> a = Appended.of(List.of("a"));
        assertThrows(UnsupportedOperationException.class, () -> a.add("b"));
        assertThrows(UnsupportedOperationException.class, () -> a.set(0, "b"));
        assertThrows(NullPointerException.class, () -> a.with(java.util.Arrays.asList((String) null)));
    }
}
