package io.gpusched.jobs;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds the word a user most likely meant when they typed one that is not known: a misspelt
 * attribute key in a jobs file ({@code vrma} for {@code vram}) or a misspelt command-line option
 * ({@code simm} for {@code sim}). A suggestion is made only when it is close, so a word that is
 * merely unknown gets none: within {@link #MAX_DISTANCE} edits, or one word a prefix of the other
 * ({@code time} and {@code timeout}, {@code cancelled} and {@code cancel}). A prefix ranks as if it
 * were at most {@link #MAX_DISTANCE} edits away and wins a tie, so {@code time} gets {@code timeout},
 * not {@code name} (two substitutions away). Case is ignored, as for attribute keys.
 */
public final class DidYouMean {
    /** The most edits (insertions, deletions, substitutions, swaps of neighbours) a suggestion may be away. */
    public static final int MAX_DISTANCE = 2;

    private DidYouMean() {
    }

    /**
     * @param typed what the user wrote
     * @param known the words that would have been accepted, best first when two are equally close
     * @return the closest known word, spelled as in {@code known}; empty when none is close, when
     *     {@code typed} is empty, or when it is itself known
     */
    public static Optional<String> suggest(String typed, Collection<String> known) {
        String t = typed.toLowerCase(Locale.ROOT);
        if (t.isEmpty()) {
            return Optional.empty();
        }
        String best = null;
        int bestRank = Integer.MAX_VALUE;
        for (String candidate : known) {
            String c = candidate.toLowerCase(Locale.ROOT);
            boolean prefix = c.startsWith(t) || t.startsWith(c);
            int gap = Math.abs(t.length() - c.length());
            if (gap > MAX_DISTANCE && !prefix) {
                continue; // too far whatever the letters; a long token in a hostile file costs no table
            }
            // A prefix is exactly the length difference away.
            int d = gap > MAX_DISTANCE ? gap : distance(t, c);
            if (d == 0) {
                return Optional.empty();
            }
            boolean close = d <= MAX_DISTANCE || prefix;
            // An abbreviation (or the word with more after it) is as likely as the farthest typo, and
            // more likely than a typo as far. Strictly less: on a tie the earlier candidate stays.
            int rank = prefix ? 2 * Math.min(d, MAX_DISTANCE) : 2 * d + 1;
            if (close && rank < bestRank) {
                best = candidate;
                bestRank = rank;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The edit distance between two words, ignoring case: the fewest single-character insertions,
     * deletions, substitutions and swaps of two neighbouring characters that turn one into the other
     * (each character edited at most once), so {@code vrma} is 1 from {@code vram}, not 2.
     *
     * @param a a word
     * @param b another word
     * @return the distance, 0 when the words are equal ignoring case
     */
    public static int distance(String a, String b) {
        String s = a.toLowerCase(Locale.ROOT);
        String t = b.toLowerCase(Locale.ROOT);
        int n = s.length();
        int m = t.length();
        // Three rolling rows of the usual table: the swap looks two rows back.
        int[] twoBack = new int[m + 1];
        int[] back = new int[m + 1];
        int[] row = new int[m + 1];
        for (int j = 0; j <= m; j++) {
            back[j] = j;
        }
        for (int i = 1; i <= n; i++) {
            row[0] = i;
            for (int j = 1; j <= m; j++) {
                int cost = s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1;
                int d = Math.min(Math.min(back[j] + 1, row[j - 1] + 1), back[j - 1] + cost);
                if (i > 1 && j > 1 && s.charAt(i - 1) == t.charAt(j - 2) && s.charAt(i - 2) == t.charAt(j - 1)) {
                    d = Math.min(d, twoBack[j - 2] + 1);
                }
                row[j] = d;
            }
            int[] spare = twoBack;
            twoBack = back;
            back = row;
            row = spare;
        }
        return back[m];
    }
}
