package io.gpusched.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A job's notes: the text of each {@linkplain Attribute#shown() shown} attribute it has, which the queue,
 * {@code top} and the dashboard show after its command and the queue answer carries under the attribute's
 * {@linkplain Attribute#fieldName() field name}. Every view of a job carries its notes as one of these, so a
 * new shown attribute is a row of {@link Attribute} and nothing else on the way to the screen.
 *
 * @param all the notes in {@link Attribute} table order, at most one per attribute, each of a shown
 *     attribute; empty for a job with none (most jobs)
 * @param <T> how a note's text is held: a {@code String} on the status board, a cut text on the wire
 */
public record Notes<T>(List<Note<T>> all) {
    private static final Notes<?> NONE = new Notes<>(List.of());

    /**
     * One note.
     *
     * @param attribute the shown attribute it is of
     * @param text what it reads, e.g. {@code nightly sweep}
     * @param <T> how the text is held
     */
    public record Note<T>(Attribute attribute, T text) {
        /**
         * Checks for nulls and that the attribute is shown.
         *
         * @param attribute see {@link #attribute()}
         * @param text see {@link #text()}
         * @throws IllegalArgumentException when the attribute is not {@linkplain Attribute#shown() shown}
         */
        public Note {
            Objects.requireNonNull(attribute, "attribute");
            Objects.requireNonNull(text, "text");
            if (!attribute.shown()) {
                throw new IllegalArgumentException("'" + attribute.key() + "' is not an attribute the queue shows");
            }
        }
    }

    /**
     * Copies the list and checks its order.
     *
     * @param all see {@link #all()}
     * @throws IllegalArgumentException when an attribute comes twice or out of table order
     */
    public Notes {
        all = List.copyOf(all);
        for (int i = 1; i < all.size(); i++) {
            if (all.get(i - 1).attribute().compareTo(all.get(i).attribute()) >= 0) {
                throw new IllegalArgumentException("notes out of table order: " + all.get(i - 1).attribute().key()
                        + " before " + all.get(i).attribute().key());
            }
        }
    }

    /**
     * @param <T> how a note's text would be held
     * @return no notes: what a job with no shown attribute has; one shared object
     */
    @SuppressWarnings("unchecked")
    public static <T> Notes<T> none() {
        return (Notes<T>) NONE;
    }

    /**
     * @param spec a job
     * @return its notes: the {@linkplain Attribute#shownText(JobSpec) text} of each shown attribute it has, in
     *     table order; {@link #none()} when it has none
     */
    public static Notes<String> of(JobSpec spec) {
        List<Note<String>> out = null;
        for (Attribute a : Attribute.SHOWN) {
            Optional<String> text = a.shownText(spec);
            if (text.isPresent()) {
                if (out == null) {
                    out = new ArrayList<>(Attribute.SHOWN.size());
                }
                out.add(new Note<>(a, text.get()));
            }
        }
        return out == null ? none() : new Notes<>(out);
    }

    /**
     * @param attribute a shown attribute
     * @return this job's note of it; empty when it has none
     */
    public Optional<T> get(Attribute attribute) {
        for (Note<T> n : all) {
            if (n.attribute() == attribute) {
                return Optional.of(n.text());
            }
        }
        return Optional.empty();
    }

    /**
     * @param f what each note's text becomes, e.g. cut for a list view
     * @param <U> the texts' new type
     * @return the same notes, each text mapped; {@link #none()} when there are none
     */
    public <U> Notes<U> map(Function<? super T, ? extends U> f) {
        if (all.isEmpty()) {
            return none();
        }
        List<Note<U>> out = new ArrayList<>(all.size());
        for (Note<T> n : all) {
            out.add(new Note<>(n.attribute(), f.apply(n.text())));
        }
        return new Notes<>(out);
    }

    /** @return whether there is no note */
    public boolean isEmpty() {
        return all.isEmpty();
    }
}
