package io.gpusched.alloc;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.RecordComponent;
import java.lang.runtime.ObjectMethods;

/** For tests of records that write their equality out: what the record itself would have made. */
public final class RecordMethods {
    private RecordMethods() {
    }

    /** The record's own {@code equals} or {@code hashCode} of {@code type}, as javac's invokedynamic would link it. */
    public static MethodHandle of(Class<?> type, String name) throws Throwable {
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
        RecordComponent[] cs = type.getRecordComponents();
        MethodHandle[] getters = new MethodHandle[cs.length];
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < cs.length; i++) {
            getters[i] = lookup.unreflect(cs[i].getAccessor());
            names.append(i == 0 ? "" : ";").append(cs[i].getName());
        }
        return (MethodHandle) ObjectMethods.bootstrap(lookup, name, MethodHandle.class, type, names.toString(), getters);
    }
}
