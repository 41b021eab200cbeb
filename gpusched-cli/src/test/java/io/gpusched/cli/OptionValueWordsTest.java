package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.jobs.JobSpec;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An option's value is the word typed after it, whatever it starts with: {@code --setup '-h  s'} sets up
 * with {@code -h  s}. picocli read such a word as a cluster of the verb's short options ({@code -h} is
 * help) and answered that the value was missing, even for {@code --setup=-h} (a fresh-clone CI run found it
 * through {@link AttributeOptionsTest}'s property, seed 8016347875095747613). The one word refused is an
 * option's own name as the next word, a value far more often forgotten than meant; the {@code =} form
 * gives it.
 */
class OptionValueWordsTest {

    private static JobSpec submitted(String... args) {
        return JobSpec.parse(ClientOptions.parse("submit", List.of(args)).line());
    }

    @Test
    void aValueThatStartsLikeAShortOptionCluster_isTheValueTyped() {
        assertEquals(Optional.of("-h  s"), submitted("--setup", "-h  s", "--", "ks").environment().setup());
        assertEquals(Optional.of("-n2"), submitted("--setup", "-n2", "--", "ks").environment().setup());
        assertEquals(Optional.of("-h"), submitted("--setup=-h", "--", "ks").environment().setup());
        assertEquals(Optional.of("-x --y"), submitted("--comment", "-x --y", "--", "ks").comment());
        assertEquals("ks", submitted("--comment", "-x", "--", "ks").command());
    }

    @Test
    void anOptionsOwnNameAsTheNextWord_isRefused_sayingHowToMeanIt() {
        UsageException forgot = assertThrows(UsageException.class,
                () -> ClientOptions.parse("submit", List.of("--name", "--vram", "2G", "--", "train.py")));
        assertEquals("--name needs a value, and --vram is an option of gpusched submit (to give --name the word --vram,"
                + " write --name=--vram)", forgot.getMessage());
        assertEquals(Optional.of("--vram"), submitted("--comment=--vram", "--", "ks").comment());
        UsageException queue = assertThrows(UsageException.class,
                () -> ClientOptions.parse("queue", List.of("--user", "--all")));
        assertEquals("--user needs a value, and --all is an option of gpusched queue (to give --user the word --all,"
                + " write --user=--all)", queue.getMessage());
    }

    @Test
    void theCommandAfterTheOptions_isNotReadForOptionNames() {
        JobSpec spec = submitted("--vram", "2G", "--", "grep", "--name", "--vram", "f");
        assertEquals("grep --name --vram f", spec.command());
        assertEquals("python3 --name --vram", submitted("python3", "--name", "--vram").command());
    }

    @Test
    void aValueLeftOffAtTheEnd_stillNeedsAValue() {
        UsageException missing = assertThrows(UsageException.class, () -> ClientOptions.parse("queue", List.of("--user")));
        assertEquals("--user needs a value (see gpusched queue --help)", missing.getMessage());
    }

    @Test
    void doctorTakesServesSimN_asItsFlag_soItsOtherValuesReadAsTypedToo() {
        assertEquals(List.of("--sim", "--socket", "-h x"), DoctorCommand.withoutSimCount(List.of("--sim", "2", "--socket",
                "-h x")));
        assertEquals(List.of("--sim", "--log-dir", "d"), DoctorCommand.withoutSimCount(List.of("--sim=3", "--log-dir", "d")));
        assertEquals(List.of("--sim", "--log-dir", "d"), DoctorCommand.withoutSimCount(List.of("--sim", "--log-dir", "d")));
        assertEquals(List.of("--socket", "5", "--sim"), DoctorCommand.withoutSimCount(List.of("--socket", "5", "--sim")));
        assertEquals("doctor takes no argument 'two' (see gpusched doctor --help)", assertThrows(UsageException.class,
                () -> DoctorCommand.withoutSimCount(List.of("--sim", "two"))).getMessage());
        assertEquals("-h x", ClientOptions.parse(DoctorCommand.spec(), "doctor", DoctorCommand.withoutSimCount(
                List.of("--sim", "2", "--socket", "-h x")), false).matchedOption("--socket").getValue());
    }
}
