package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Every option that takes a value, of every verb, takes the word typed as it is: words that start like
 * the verb's own options ({@code -h  s}, {@code -n2}, {@code --vram=3}), hold an {@code =}, quotes, an
 * {@code @}, spaces or any script; given as the next word or after {@code =}. The words refused are an
 * option's own name as the next word (a value forgotten: {@link OptionValueWordsTest}), {@code --}, and
 * blank values of the options that name a file or directory.
 */
class OptionValuesAsTypedPropertiesTest {
    private record Verb(String name, CommandSpec spec, boolean stopAtPositional) {
    }

    private record Typed(Verb verb, String option, String value, boolean attached) {
        @Override
        public String toString() {
            return "gpusched " + verb.name() + " " + (attached ? option + "=" + value : option + " " + value);
        }
    }

    private static List<Verb> verbs() {
        List<Verb> verbs = new ArrayList<>();
        for (String v : ClientOptions.VERBS) {
            verbs.add(new Verb(v, ClientOptions.spec(v), v.equals("submit") || v.equals("srun")));
        }
        verbs.add(new Verb("", CliArgs.spec(false), false));
        verbs.add(new Verb("serve", CliArgs.spec(true), false));
        // In a fixed order, so that a seed replays the same draws.
        verbs.add(new Verb("simulate", SimulateCommand.spec(), false));
        verbs.add(new Verb("stats", StatsCommand.spec(), false));
        verbs.add(new Verb("convert", ConvertCommand.spec(), false));
        verbs.add(new Verb("status", StatusCommand.spec(), false));
        verbs.add(new Verb("top", TopCommand.spec(), false));
        verbs.add(new Verb("doctor", DoctorCommand.spec(), false));
        return verbs;
    }

    private static Gen<Typed> typed() {
        List<Verb> verbs = verbs();
        return Gen.elements(verbs).flatMap(verb -> {
            List<OptionSpec> valued = verb.spec().options().stream().filter(o -> o.arity().min() == 1).toList();
            List<String> names = new ArrayList<>(verb.spec().optionsMap().keySet());
            Gen<String> piece = Gen.oneOf(Gen.elements("-", "--", "=", " ", "h", "n", "2", "x", "@", "'", "\"", "é", "😀",
                    ",", ":", "%", "\\"), Gen.elements(names));
            Gen<String> value = Gen.strings(piece, 1, 6).filter(s -> !s.isBlank() && !s.equals("--")
                    && !verb.spec().optionsMap().containsKey(s));
            return Gen.elements(valued).flatMap(o -> value.with(Gen.booleans(),
                    (v, attached) -> new Typed(verb, o.longestName(), v, attached)));
        });
    }

    @Test
    void everyValuedOptionOfEveryVerb_takesTheWordTyped_asTheNextWordOrAfterEquals() {
        Property.forAll(typed()).tries(1000).check(t -> {
            List<String> args = t.attached() ? List.of(t.option() + "=" + t.value()) : List.of(t.option(), t.value());
            ParseResult r = ClientOptions.parse(t.verb().spec(), t.verb().name(), args, t.verb().stopAtPositional());
            assertEquals(t.value(), r.matchedOption(t.option()).getValue(), t.toString());
        });
    }
}
