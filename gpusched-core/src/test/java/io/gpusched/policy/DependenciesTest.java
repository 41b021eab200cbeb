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

    /**
     * A sweep: {@code prep}, then more named jobs after it than are remembered. Before, naming the
     * 10,001st forgot {@code prep} while it ran, and every job waiting after it ended
     * {@code dependency_failed} ("no job of that name is known").
     */
    @Test
    void aNameWhoseJobHasNotEnded_isNeverForgotten_howeverManyNamesFollow() {
        Dependencies d = new Dependencies();
        java.util.Set<String> live = new java.util.HashSet<>(List.of("s1"));
        d.learn("alice", "prep", "s1", live::contains);
        for (int i = 0; i < 3 * Dependencies.REMEMBERED; i++) {
            d.learn("alice", "train" + i, "t" + i, live::contains); // ended: these may be forgotten
        }
        assertEquals(new Dependencies.Waiting("after job 1 (prep)"),
                d.check("alice", AFTER_PREP, k -> new Dependencies.Known(1, Optional.empty())));
        // The ended ones stay bounded, the oldest forgotten first.
        assertEquals(Optional.empty(), d.keyOf("alice", "train0"));
        assertEquals(Optional.empty(), d.keyOf("alice", "train" + (2 * Dependencies.REMEMBERED)));
        assertEquals(Optional.of("t" + (3 * Dependencies.REMEMBERED - 1)), d.keyOf("alice", "train" + (3 * Dependencies.REMEMBERED - 1)));
        // Once it ends, prep is forgotten in its turn, as any ended name.
        live.clear();
        for (int i = 0; i < 2 * Dependencies.REMEMBERED; i++) {
            d.learn("alice", "eval" + i, "e" + i, live::contains);
        }
        assertEquals(Optional.empty(), d.keyOf("alice", "prep"));
    }

    /** Many live names at once (a queue of them) are all kept; the map shrinks back as their jobs end. */
    @Test
    void namesOfJobsNotEnded_areAllKept_andForgottenOnlyOnceTheyEnd() {
        Dependencies d = new Dependencies();
        java.util.Set<String> live = new java.util.HashSet<>();
        int n = Dependencies.REMEMBERED + 500;
        for (int i = 0; i < n; i++) {
            live.add("q" + i);
            d.learn("bob", "step" + i, "q" + i, live::contains);
        }
        for (int i = 0; i < n; i++) {
            assertEquals(Optional.of("q" + i), d.keyOf("bob", "step" + i), "step" + i + " is still queued");
        }
        live.clear();
        for (int i = 0; i < Dependencies.REMEMBERED; i++) {
            d.learn("bob", "later" + i, "l" + i, live::contains);
        }
        int kept = 0;
        for (int i = 0; i < n; i++) {
            kept += d.keyOf("bob", "step" + i).isPresent() ? 1 : 0;
        }
        assertEquals(0, kept, "every ended step is older than the " + Dependencies.REMEMBERED + " newest names");
    }
}
