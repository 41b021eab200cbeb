package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.policy.Dependencies;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@link Dependencies} remembers of its owners' names, over random streams of named jobs that
 * start and end, by several owners, past {@link Dependencies#REMEMBERED}: a name whose job has not
 * ended always resolves to its owner's newest job of that name; no owner's name ever resolves to
 * another owner's job; and each owner's ended names kept never exceed the bound by more than the two
 * each new name may leave (the map never grows past the owner's live names plus the bound).
 */
class DependencyNamesPropertiesTest {
    private static final int TRIES = 40;

    /** One step: {@code owner} names a new job {@code name}, or the job of {@code key} ends. */
    record Step(String owner, String name, Optional<String> ends) {
    }

    static Gen<List<Step>> streams() {
        return (r, size) -> {
            int n = Dependencies.REMEMBERED + r.nextInt(3 * Dependencies.REMEMBERED);
            int names = 10 + r.nextInt(3 * Dependencies.REMEMBERED); // few: names taken again; many: mostly new
            List<Step> steps = new ArrayList<>(n);
            List<String> started = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (!started.isEmpty() && r.nextInt(3) == 0) {
                    // An end, of a job taken at random: a long-running one may stay live across the whole stream.
                    String key = started.remove(r.nextInt(started.size()));
                    steps.add(new Step("", "", Optional.of(key)));
                } else {
                    String owner = r.nextInt(4) == 0 ? "mallory" : "alice";
                    steps.add(new Step(owner, "n" + r.nextInt(names), Optional.empty()));
                    started.add("k" + i);
                }
            }
            return steps;
        };
    }

    @Test
    void liveNamesAlwaysResolveToTheirOwnersNewestJob_andEndedOnesStayBounded() {
        Property.forAll(streams()).tries(TRIES).check(steps -> {
            Dependencies d = new Dependencies();
            Set<String> live = new HashSet<>();
            // The model: each owner's newest key of each name, and the owner of each key.
            Map<String, Map<String, String>> newest = new HashMap<>();
            Map<String, String> ownerOf = new HashMap<>();
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                if (s.ends().isPresent()) {
                    live.remove(s.ends().get());
                    continue;
                }
                String key = "k" + i;
                live.add(key);
                ownerOf.put(key, s.owner());
                newest.computeIfAbsent(s.owner(), o -> new LinkedHashMap<>()).put(s.name(), key);
                d.learn(s.owner(), s.name(), key, live::contains);
            }
            for (Map.Entry<String, Map<String, String>> o : newest.entrySet()) {
                int kept = 0;
                int liveNames = 0;
                for (Map.Entry<String, String> n : o.getValue().entrySet()) {
                    Optional<String> got = d.keyOf(o.getKey(), n.getKey());
                    got.ifPresent(k -> assertEquals(o.getKey(), ownerOf.get(k), "a name resolved to another owner's job"));
                    if (live.contains(n.getValue())) {
                        liveNames++;
                        assertEquals(Optional.of(n.getValue()), got, o.getKey() + "'s " + n.getKey() + " is live");
                    }
                    kept += got.isPresent() ? 1 : 0;
                }
                assertTrue(kept <= Dependencies.REMEMBERED + liveNames,
                        o.getKey() + " keeps " + kept + " names, " + liveNames + " of them live");
            }
        });
    }
}
