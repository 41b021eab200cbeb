package io.gpusched.cli;

import io.gpusched.jobs.Attribute;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The columns {@code gpusched queue --format SPEC} prints, in the spirit of {@code squeue -o}: a SPEC is
 * either {@code %}-fields ({@code "%i %u %t %20c %r"}) or field names separated by commas
 * ({@code job,user,state,command:20,reason}). A number after {@code %} (or after a name's {@code :}) is
 * the most columns that field takes (longer text is cut with {@code …}); a {@code .} before it aligns the
 * field to the right ({@code %.6M}, {@code time:.6}). Without a number a field is as wide as its widest
 * cell. Whatever comes between {@code %}-fields (spaces, {@code |}) is ignored: columns are separated by
 * two spaces. The last column is cut to the terminal's width.
 *
 * @param columns the columns, left to right; at least one
 */
record QueueFormat(List<Column> columns) {
    /** The most columns one field may be given, so a typo such as {@code %9999999c} is refused. */
    static final int MAX_WIDTH = 1000;
    /**
     * The most columns a format may have (each field twice over): a daemon renders the table for its
     * clients, and a format repeating a field hundreds of times would cost it that many cells a row.
     */
    static final int MAX_COLUMNS = 24;

    /** The table {@code gpusched queue} prints without {@code --format} on a terminal. */
    static final QueueFormat DEFAULT = parse("%i %u %t %b %m %.M %.p %32c %r");

    /** {@link #DEFAULT} when a job shown has a terminal ({@code [tty]}): a TTY column after STATE marks it. */
    static final QueueFormat DEFAULT_WITH_TTY = parse("%i %u %t %y %b %m %.M %.p %32c %r");

    /** What a column can show. */
    enum Field {
        /** The job's number. */
        JOB('i', "job", "JOB"),
        /** Who it runs for. */
        USER('u', "user", "USER"),
        /** running, stopping, pending, held, interrupted, or how it ended (ok, failed, timeout, ...). */
        STATE('t', "state", "STATE"),
        /** {@code tty} for a running or pending job with a terminal of its own ({@code gpusched attach N}), else {@code -}. */
        TTY('y', "tty", "TTY"),
        /** The GPUs it runs (or ran) on; a pending job's, those it asks for ({@code 2}, {@code 0.5}, {@code 1 on 2-3}). */
        GPUS('b', "gpus", "GPUS"),
        /** GPU memory: used now (running) or its peak (ended), then its declaration, e.g. {@code 3.1G/8G}. */
        MEMORY('m', "memory", "MEMORY"),
        /**
         * How long it has run, or ran, or (pending) has waited so far: {@code 45s}, {@code 3m05s}, {@code 1h02m},
         * {@code 2d04h}.
         */
        TIME('M', "time", "TIME"),
        /** Its declared priority. */
        PRIORITY('p', "priority", "PRIO"),
        /** Why it waits, why it is stopping, or how it ended ({@code exit 3}, and the cause). */
        REASON('r', "reason", "REASON"),
        /** Its exit code, once ended. */
        EXIT('x', "exit", "EXIT"),
        /** Its command (as the queue shortens it). */
        COMMAND('c', "command", "COMMAND"),
        /**
         * Its notes: the text of each shown attribute it has ({@code comment=}), {@code ; } between two; a shown
         * attribute's key as a field name ({@code comment}) is a column of that one alone, titled by it.
         */
        NOTE('k', "note", "NOTE");

        final char letter;
        final String name;
        final String title;

        Field(char letter, String name, String title) {
            this.letter = letter;
            this.name = name;
            this.title = title;
        }
    }

    /**
     * One column.
     *
     * @param field what it shows
     * @param width the most columns it takes; empty: as wide as its widest cell
     * @param right whether it is aligned to the right
     * @param note for a {@link Field#NOTE} column named by a shown attribute's key, that attribute: the column
     *     shows its note alone; empty for every other column
     */
    record Column(Field field, OptionalInt width, boolean right, Optional<Attribute> note) {
        /** A column of a field, the notes' column being all of them. */
        Column(Field field, OptionalInt width, boolean right) {
            this(field, width, right, Optional.empty());
        }

        /**
         * @return its title: the field's, or the attribute's key in capitals for one attribute's notes; the
         *     notes' column while the table shows one attribute is titled by it too ({@code COMMENT}, as
         *     squeue titles {@code %k})
         */
        String title() {
            Optional<Attribute> one = note.isPresent() || field != Field.NOTE || Attribute.SHOWN.size() != 1
                    ? note : Optional.of(Attribute.SHOWN.get(0));
            return one.map(a -> a.key().toUpperCase(Locale.ROOT)).orElse(field.title);
        }
    }

    QueueFormat {
        columns = List.copyOf(columns);
        if (columns.isEmpty()) {
            throw new UsageException("--format names no field; e.g. --format '%i %u %t %c' (see gpusched queue --help)");
        }
        if (columns.size() > MAX_COLUMNS) {
            throw new UsageException("--format names " + columns.size() + " fields; at most " + MAX_COLUMNS
                    + " are taken (see gpusched queue --help)");
        }
    }

    /**
     * @return this format as {@code %}-fields, which {@link #parse} reads back to an equal format: what
     *     the client sends a daemon that prints the table for it
     */
    String spec() {
        StringBuilder b = new StringBuilder();
        for (Column c : columns) {
            b.append(b.length() == 0 ? "%" : " %").append(c.right() ? "." : "");
            c.width().ifPresent(b::append);
            b.append(c.field().letter);
        }
        return b.toString();
    }

    /**
     * @param spec {@code %}-fields or comma-separated names
     * @return the format
     * @throws UsageException naming what is wrong and the fields there are
     */
    static QueueFormat parse(String spec) {
        return spec.contains("%") ? percent(spec) : names(spec);
    }

    private static QueueFormat percent(String spec) {
        List<Column> out = new ArrayList<>();
        int i = 0;
        while (i < spec.length()) {
            if (spec.charAt(i) != '%') {
                i++;
                continue;
            }
            int at = i++;
            boolean right = i < spec.length() && spec.charAt(i) == '.';
            if (right) {
                i++;
            }
            int digits = i;
            while (i < spec.length() && Character.isDigit(spec.charAt(i))) {
                i++;
            }
            if (i >= spec.length()) {
                throw new UsageException("--format: '" + spec.substring(at) + "' ends without a field letter; " + known());
            }
            char letter = spec.charAt(i++);
            Field field = null;
            for (Field f : Field.values()) {
                if (f.letter == letter) {
                    field = f;
                }
            }
            if (field == null) {
                throw new UsageException("--format: unknown field %" + letter + "; " + known());
            }
            out.add(new Column(field, width(spec.substring(digits, i - 1), spec), right));
        }
        return new QueueFormat(out);
    }

    private static QueueFormat names(String spec) {
        List<Column> out = new ArrayList<>();
        for (String part : spec.split(",", -1)) {
            String p = part.strip();
            String name = p;
            String size = "";
            int colon = p.indexOf(':');
            if (colon >= 0) {
                name = p.substring(0, colon);
                size = p.substring(colon + 1);
            }
            boolean right = size.startsWith(".");
            if (right) {
                size = size.substring(1);
            }
            Field field = null;
            for (Field f : Field.values()) {
                if (f.name.equals(name.toLowerCase(Locale.ROOT))) {
                    field = f;
                }
            }
            Optional<Attribute> note = field != null ? Optional.empty()
                    : Attribute.forKey(name).filter(Attribute::shown);
            if (field == null && note.isEmpty()) {
                throw new UsageException("--format: unknown field '" + name + "'; " + known());
            }
            if (!size.chars().allMatch(Character::isDigit)) {
                throw new UsageException("--format: '" + p + "': the width after ':' is a number, e.g. " + name + ":20");
            }
            out.add(new Column(note.isPresent() ? Field.NOTE : field, width(size, spec), right, note));
        }
        return new QueueFormat(out);
    }

    private static OptionalInt width(String digits, String spec) {
        if (digits.isEmpty()) {
            return OptionalInt.empty();
        }
        if (digits.length() > 4 || Integer.parseInt(digits) < 1 || Integer.parseInt(digits) > MAX_WIDTH) {
            throw new UsageException("--format '" + spec + "': a width is 1 to " + MAX_WIDTH + ", got " + digits);
        }
        return OptionalInt.of(Integer.parseInt(digits));
    }

    /** @return the fields there are, for an error message */
    static String known() {
        StringBuilder b = new StringBuilder("fields: ");
        for (Field f : Field.values()) {
            b.append(f.ordinal() == 0 ? "" : ", ").append('%').append(f.letter).append(' ').append(f.name);
        }
        for (Attribute a : Attribute.SHOWN) {
            b.append(", ").append(a.key()); // one note alone, by name only
        }
        return b.toString();
    }
}
