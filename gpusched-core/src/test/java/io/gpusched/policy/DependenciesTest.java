package io.gpusched.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.gpusched.jobs.Scheduling;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** What a job's {@code after=} resolves to when several owners share a queue. */
class DependenciesTest {
    private static final List<Scheduling.Dependency> AFTER_PREP = List.of(new Scheduling.Dependency("prep", true));

    @Test
    void aNameResolvesAmongItsOwnersJobsOnly_evenWhenAnotherOwnersIsNewer() {
        Dependencies d = new Dependencies();
        d.learn("alice", "prep", "s1");
        d.learn("mallory", "prep", "s3"); // newer, same name, someone else's
        Map<String, Dependencies.Known> known = Map.of(
                "s1", new Dependencies.Known(1, Optional.empty()),
                "s3", new Dependencies.Known(3, Optional.of("failed")));

        Dependencies.Verdict alices = d.check("alice", AFTER_PREP, known::get);
        Dependencies.Verdict mallorys = d.check("mallory", AFTER_PREP, known::get);

        assertEquals(new Dependencies.Waiting("after job 1 (prep)"), alices);
        assertInstanceOf(Dependencies.Failed.class, mallorys);
        assertEquals(Optional.of("s1"), d.keyOf("alice", "prep"));
        assertEquals(Optional.empty(), d.keyOf("bob", "prep"));
    }

    @Test
    void aNameNoJobOfTheOwnersHasFailsTheJob_thoughAnotherOwnerHasOne() {
        Dependencies d = new Dependencies();
        d.learn("mallory", "prep", "s3");
        assertEquals(new Dependencies.Failed("after=prep: no job of that name is known"),
                d.check("alice", AFTER_PREP, k -> new Dependencies.Known(3, Optional.of("ok"))));
    }

    @Test
    void withinOneOwnerTheNewestJobOfANameWins() {
        Dependencies d = new Dependencies();
        d.learn("alice", "prep", "s1");
        d.learn("alice", "prep", "s2");
        d.learn("prep", "s9"); // the single-owner form is an owner of its own
        assertEquals(Optional.of("s2"), d.keyOf("alice", "prep"));
        assertEquals(Optional.of("s9"), d.keyOf("prep"));
    }

    /**
     * Mallory names more jobs than are remembered: before, one map shared by every owner forgot alice's
     * {@code prep} (still running), and her job waiting after it ended {@code dependency_failed}.
     */
    @Test
    void anotherOwnerNamingMoreJobsThanAreRemembered_forgetsNoneOfMyNames() {
        Dependencies d = new Dependencies();
        d.learn("alice", "prep", "s1");
        for (int i = 0; i <= Dependencies.REMEMBERED; i++) {
            d.learn("mallory", "n" + i, "m" + i);
        }
        assertEquals(new Dependencies.Waiting("after job 1 (prep)"),
                d.check("alice", AFTER_PREP, k -> new Dependencies.Known(1, Optional.empty())));
        assertEquals(Optional.of("s1"), d.keyOf("alice", "prep"));
        // Hers are bounded as before: her oldest forgotten first, to make room for her newest.
        assertEquals(Optional.empty(), d.keyOf("mallory", "n0"));
        assertEquals(Optional.of("m1"), d.keyOf("mallory", "n1"));
        assertEquals(Optional.of("m" + Dependencies.REMEMBERED), d.keyOf("mallory", "n" + Dependencies.REMEMBERED));
    }
}
