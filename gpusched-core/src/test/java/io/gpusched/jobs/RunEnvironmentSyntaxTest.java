package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code conda=} and {@code setup=}, and the quoted values they need, as a jobs file writes them. */
class RunEnvironmentSyntaxTest {
    private static List<JobSpec> parse(String text) {
        return JobsFileParser.parse(text, "jobs.txt");
    }

    private static JobSpecException error(String text) {
        return assertThrows(JobSpecException.class, () -> parse(text));
    }

    @Test
    void condaTakesANameOrAnAbsolutePrefixPath() {
        JobSpec named = JobSpec.parse("[conda=torch-2.1 vram=8G] python train.py");
        assertEquals(Optional.of("torch-2.1"), named.environment().conda());
        assertEquals(Optional.empty(), named.environment().setup());
        assertEquals("python train.py", named.command());
        assertFalse(named.environment().condaPrefix());
        JobSpec prefix = JobSpec.parse("[CONDA='/opt/my envs/x'] python train.py");
        assertEquals(Optional.of("/opt/my envs/x"), prefix.environment().conda());
        assertTrue(prefix.environment().condaPrefix());
    }

    @Test
    void aLineWithoutThemRunsItsCommandOnItsOwn() {
        assertEquals(RunEnvironment.DEFAULT, JobSpec.parse("[vram=8G] python x.py").environment());
        assertEquals(RunEnvironment.DEFAULT, JobSpec.parse("python x.py").environment());
    }

    @Test
    void setupInSingleQuotesKeepsSpacesBracketsAndDoubleQuotes() {
        JobSpec j = JobSpec.parse("[setup='[ -f .env ] && . venv/bin/activate; export A=\"b c\"' vram=1G] python x.py");
        assertEquals(Optional.of("[ -f .env ] && . venv/bin/activate; export A=\"b c\""), j.environment().setup());
        assertEquals("python x.py", j.command());
        assertEquals(1024, j.vramMib().getAsLong());
    }

    @Test
    void setupInDoubleQuotesReadsEscapedQuotesAndBackslashes_keepsOtherBackslashes() {
        JobSpec j = JobSpec.parse("[setup=\"echo 'hi' \\\"there\\\" a\\\\b c\\d\"] run");
        assertEquals(Optional.of("echo 'hi' \"there\" a\\b c\\d"), j.environment().setup());
    }

    @Test
    void aBareValueEndsAtSpaceOrBracket_aQuoteInsideItIsAnOrdinaryCharacter() {
        assertEquals(Optional.of("true"), JobSpec.parse("[setup=true] x").environment().setup());
        assertEquals(Optional.of("a'b"), JobSpec.parse("[setup=a'b] x").environment().setup());
        // As before quoting: a quote where no value starts is part of the token, and still an error there.
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[vram=8G\"] x"));
        assertTrue(e.getMessage().contains("bad vram 'vram=8G\"'"), e.getMessage());
    }

    @Test
    void anyValueMayBeQuoted() {
        JobSpec j = JobSpec.parse("[vram='8G' name=\"prep\"] x");
        assertEquals(8192, j.vramMib().getAsLong());
        assertEquals(Optional.of("prep"), j.scheduling().name());
    }

    @Test
    void anUnterminatedQuoteIsAOneLineErrorNamingFileLineAndFix() {
        JobSpecException e = error("ok\n[setup='. venv/bin/activate] python train.py\n");
        assertEquals(2, e.line());
        assertEquals("jobs.txt:2: unterminated quote in attribute block: 'setup='. venv/bin/activate] python train.py';"
                + " end the value with the quote it starts with, e.g. [setup='. venv/bin/activate'] python train.py"
                + " (a value holding ' goes in double quotes: setup=\"echo 'hi'\")", e.getMessage());
    }

    @Test
    void textRightAfterAClosingQuoteIsAnError() {
        JobSpecException e = error("[setup='a'b conda=x] run\n");
        assertEquals("jobs.txt:1: text right after the closing quote in attribute block: 'setup='a'b'; quote the whole"
                + " value, or put a space after the closing quote", e.getMessage());
    }

    @Test
    void aClosedQuoteWithoutTheBlocksBracketIsStillAnUnterminatedBlock() {
        JobSpecException e = error("[setup='a b' python x.py\n");
        assertTrue(e.getMessage().startsWith("jobs.txt:1: unterminated [ block"), e.getMessage());
    }

    @Test
    void badCondaNamesAndEmptySetupAreErrorsNamingTheFix() {
        assertTrue(error("[conda=my/env] x").getMessage().startsWith("jobs.txt:1: bad conda 'conda=my/env'; give an"
                + " environment's name (letters, digits, '_', '.', '+', '-'; e.g. conda=torch) or the absolute path of its"
                + " prefix (conda=/opt/envs/torch)"));
        assertTrue(error("[conda=-n] x").getMessage().startsWith("jobs.txt:1: bad conda"));
        assertTrue(error("[conda='my env'] x").getMessage().startsWith("jobs.txt:1: bad conda"));
        assertTrue(error("[conda=] x").getMessage().startsWith("jobs.txt:1: bad conda"));
        assertEquals("jobs.txt:1: empty setup 'setup=' ''; give the shell text to run before the command, quoted when it"
                + " holds spaces: setup='. venv/bin/activate'", error("[setup=' '] x").getMessage());
        assertTrue(error("[setup= conda=x] y").getMessage().startsWith("jobs.txt:1: empty setup"));
    }

    @Test
    void eachIsGivenOnce_aMisspeltOneGetsTheKeySuggested() {
        assertTrue(error("[conda=a conda=b] x").getMessage().contains("duplicate key conda"));
        assertTrue(error("[setup=a SETUP=b] x").getMessage().contains("duplicate key setup"));
        assertTrue(error("[cond=a] x").getMessage().contains("— did you mean 'conda'?"));
        assertTrue(error("[setpu=a] x").getMessage().contains("— did you mean 'setup'?"));
    }

    @Test
    void toLineQuotesWhatNeedsIt_andEveryLineReadsBackTheSame() {
        JobSpec j = JobSpec.parse("[setup='. venv/bin/activate' conda=torch vram=8G] python train.py");
        assertEquals("[vram=8192 conda=torch setup='. venv/bin/activate'] python train.py", j.toLine());
        assertEquals(j, JobSpec.parse(j.toLine()));
        for (String setup : List.of("true", "a'b", "it's \"x\"", "'lead", "\"lead", "a]b", "x\\", "\\\"", "tab\there")) {
            JobSpec s = JobSpec.parse("x").withEnvironment(RunEnvironment.setup(setup));
            assertEquals(s, JobSpec.parse(s.toLine()), s.toLine());
        }
        assertEquals("[setup=\"it's \\\"x\\\"\"] x", JobSpec.parse("x").withEnvironment(RunEnvironment.setup("it's \"x\"")).toLine());
    }

    @Test
    void aBadLineWithAQuotedValueStillGivesItsName_soItsDependentsAreNotAlsoWrong() {
        JobSpecException e = error("[setup='x ] y' name=prep colour=red] a\n[after=prep] b\n");
        assertEquals(1, e.badLines(), e.getMessage());
        assertTrue(e.getMessage().startsWith("jobs.txt:1: unknown key in attribute block: 'colour=red'"), e.getMessage());
    }

    @Test
    void theEnvironmentIsNotPartOfTheJobsIdentity() {
        assertEquals(JobSpec.parse("python x.py").key(), JobSpec.parse("[conda=a setup=true] python x.py").key());
    }

    @Test
    void theRecordRefusesWhatTheParserRefuses() {
        assertThrows(IllegalArgumentException.class, () -> RunEnvironment.conda("my env"));
        assertThrows(IllegalArgumentException.class, () -> RunEnvironment.conda("/a\nb"));
        assertThrows(IllegalArgumentException.class, () -> RunEnvironment.setup(" "));
        assertThrows(IllegalArgumentException.class, () -> RunEnvironment.setup("a\nb"));
        assertThrows(IllegalArgumentException.class, () -> RunEnvironment.setup("a\0b"));
    }
}
