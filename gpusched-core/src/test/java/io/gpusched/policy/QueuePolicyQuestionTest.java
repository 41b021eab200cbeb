package io.gpusched.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.alloc.RecordMethods;
import io.gpusched.alloc.Request;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * QueuePolicy's allocator questions key its memo and write their equality out (a run's first plan would
 * otherwise link the record's through ObjectMethods): exactly what the record would make, hashes included.
 */
class QueuePolicyQuestionTest {
    @Test
    void aQuestionsEqualsAndHashCodeAreWhatTheRecordWouldMake() throws Throwable {
        Class<?> type = Class.forName(QueuePolicy.class.getName() + "$Question");
        Constructor<?> make = type.getDeclaredConstructor(Request.class, Set.class);
        make.setAccessible(true);
        List<Object> questions = new ArrayList<>();
        for (Request r : List.of(Request.declared(8000, 1), Request.undeclared(2))) {
            for (Set<Integer> closed : List.of(Set.<Integer>of(), Set.of(0), Set.of(0, 1))) {
                questions.add(make.newInstance(r, closed));
            }
        }
        MethodHandle hash = RecordMethods.of(type, "hashCode");
        MethodHandle eq = RecordMethods.of(type, "equals");
        for (Object a : questions) {
            assertEquals((int) hash.invoke(a), a.hashCode(), a.toString());
            for (Object b : questions) {
                assertEquals((boolean) eq.invoke(a, b), a.equals(b), a + " vs " + b);
            }
        }
        assertEquals(make.newInstance(Request.declared(8000, 1), Set.of(0)), make.newInstance(Request.declared(8000, 1), Set.of(0)));
    }
}
