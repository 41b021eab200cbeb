package io.gpusched.engine.table;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * An unmodifiable list that shares one growing array with the lists appended from it, so a submission
 * joining a queue of 100,000 costs amortised O(1) instead of a copy of the whole queue. A list never
 * changes once made: an append writes past its end, where only the longer list made by that append looks,
 * and an append to a list that is not the longest made from the array (an older version) copies first.
 * Loop thread only, like the source that holds it.
 *
 * @param <T> the elements, never null
 */
final class Appended<T> extends AbstractList<T> implements RandomAccess {
    /** The array and how much of it the longest list made from it uses. */
    private static final class Shared {
        Object[] elements;
        int used;

        Shared(Object[] elements, int used) {
            this.elements = elements;
            this.used = used;
        }
    }

    private final Shared shared;
    private final int size;

    private Appended(Shared shared, int size) {
        this.shared = shared;
        this.size = size;
    }

    /**
     * @param of the elements, copied
     * @param <T> their type
     * @return a list of them, to append to
     * @throws NullPointerException for a null element
     */
    static <T> Appended<T> of(List<T> of) {
        Object[] a = of.toArray();
        for (Object o : a) {
            Objects.requireNonNull(o, "element");
        }
        return new Appended<>(new Shared(a, a.length), a.length);
    }

    /**
     * @param more elements to add at the end
     * @return this list followed by {@code more}; this list is unchanged
     * @throws NullPointerException for a null element
     */
    Appended<T> with(List<T> more) {
        if (more.isEmpty()) {
            return this;
        }
        Shared s = shared;
        int need = size + more.size();
        if (s.used != size) {
            // An older version: what follows it in the array belongs to a longer list.
            s = new Shared(Arrays.copyOf(s.elements, Math.max(need, size + (size >> 1))), size);
        } else if (need > s.elements.length) {
            s.elements = Arrays.copyOf(s.elements, Math.max(need, s.elements.length + (s.elements.length >> 1) + 16));
        }
        int at = size;
        for (T t : more) {
            s.elements[at++] = Objects.requireNonNull(t, "element");
        }
        s.used = need;
        return new Appended<>(s, need);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T get(int index) {
        Objects.checkIndex(index, size);
        return (T) shared.elements[index];
    }

    @Override
    public int size() {
        return size;
    }
}
