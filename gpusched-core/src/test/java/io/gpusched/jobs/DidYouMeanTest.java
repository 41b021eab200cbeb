package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DidYouMeanTest {
    private static final List<String> KEYS = List.of("vram", "gpus", "timeout", "retries", "cancel");

    @Test
    void distanceCountsInsertionsDeletionsSubstitutionsAndNeighbourSwapsIgnoringCase() {
        assertEquals(0, DidYouMean.distance("vram", "VRAM"));
        assertEquals(1, DidYouMean.distance("vrma", "vram"), "a swap of neighbours is one edit");
        assertEquals(1, DidYouMean.distance("gpu", "gpus"));
        assertEquals(1, DidYouMean.distance("vrams", "vram"));
        assertEquals(1, DidYouMean.distance("vrom", "vram"));
        assertEquals(2, DidYouMean.distance("tmieotu", "timeout"));
        assertEquals(4, DidYouMean.distance("", "vram"));
        assertEquals(DidYouMean.distance("retry", "retries"), DidYouMean.distance("retries", "retry"));
    }

    @Test
    void aWordWithinTwoEditsOfAKnownOneGetsIt() {
        assertEquals(Optional.of("vram"), DidYouMean.suggest("vrma", KEYS));
        assertEquals(Optional.of("timeout"), DidYouMean.suggest("tmieout", KEYS));
        assertEquals(Optional.of("gpus"), DidYouMean.suggest("GPU", KEYS), "case is ignored, the known spelling is given");
    }

    @Test
    void aPrefixEitherWayGetsTheKnownWordWhateverTheDistance() {
        assertEquals(Optional.of("timeout"), DidYouMean.suggest("ti", KEYS));
        assertEquals(Optional.of("cancel"), DidYouMean.suggest("cancelled", KEYS));
    }

    @Test
    void aPrefixWinsOverAWordAsManyEditsAway_aNearerTypoWinsOverAFarPrefix() {
        assertEquals(Optional.of("timeout"), DidYouMean.suggest("time", List.of("name", "timeout")), "name is 2 substitutions away");
        assertEquals(Optional.of("after-ok"), DidYouMean.suggest("after-o", List.of("after", "after-ok")), "after is a prefix, 2 away");
        assertEquals(Optional.of("gpus"), DidYouMean.suggest("gpu-", List.of("gpu-ids", "gpus")), "gpus is 1 away");
    }

    @Test
    void aWordFarFromEveryKnownOneGetsNothing() {
        assertEquals(Optional.empty(), DidYouMean.suggest("colour", KEYS));
        assertEquals(Optional.empty(), DidYouMean.suggest("memory", KEYS));
        assertEquals(Optional.empty(), DidYouMean.suggest("", KEYS));
    }

    @Test
    void aKnownWordGetsNothing() {
        assertEquals(Optional.empty(), DidYouMean.suggest("Vram", KEYS));
    }

    @Test
    void theClosestWinsAndOnATieTheEarlierKnownWord() {
        assertEquals(Optional.of("version"), DidYouMean.suggest("versio", List.of("verbose", "version")));
        assertEquals(Optional.of("verbose"), DidYouMean.suggest("ver", List.of("verbose", "version")));
        assertEquals(Optional.of("version"), DidYouMean.suggest("ver", List.of("version", "verbose")));
    }
}
