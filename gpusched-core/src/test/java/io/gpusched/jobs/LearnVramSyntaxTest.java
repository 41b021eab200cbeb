package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@code vram=auto} in the jobs file, its one-line errors, and how requirement rules treat a learning line. */
class LearnVramSyntaxTest {
    private static String error(String text) {
        return assertThrows(JobSpecException.class, () -> JobsFileParser.parse(text, "jobs.txt")).getMessage();
    }

    @Test
    void vramAutoLearnsAndIsUndeclaredUntilARunTeachesIt() {
        JobSpec s = JobsFileParser.parse("python a.py\n[vram=AUTO priority=2] python train.py\n", "jobs.txt").get(1);
        assertTrue(s.learnVram());
        assertEquals(OptionalLong.empty(), s.vramMib());
        assertFalse(s.declared(), "until something is learned the job runs as undeclared");
        assertEquals("[vram=auto priority=2] python train.py", s.toLine());
        assertEquals(s.toLine(), JobSpec.parse(s.toLine()).toLine());
        assertTrue(JobSpec.parse(s.toLine()).learnVram());
        assertFalse(JobSpec.parse("[vram=8G] x").learnVram());
    }

    @Test
    void aShareAndVramAutoOnOneLineIsAnErrorThatSaysWhichToKeep() {
        assertEquals("jobs.txt:1: vram=auto and gpus=0.5 both say how much memory the job needs; keep one: gpus=0.5 (that"
                + " share of whichever GPU it gets) or vram=auto (the same MiB on any GPU)", error("[vram=auto gpus=0.5] x\n"));
    }

    @Test
    void aBadVramNamesAutoAmongTheFixes() {
        assertEquals("jobs.txt:2: bad vram 'vram=automatic'; give positive MiB like 18000, a size like 18G, 1.5GiB, 512MiB"
                + " (at most " + Units.MAX_MIB + " MiB), or auto to learn it from earlier runs", error("a\n[vram=automatic] x\n"));
    }

    @Test
    void aRulesFigureIsWhatALearningLineAsksForUntilARunTeachesIt_andItStillLearns() {
        Requirements rules = new Requirements(List.of(new Requirements.Rule("7b", "--llm 7b", false, OptionalLong.of(16384),
                OptionalInt.empty(), Optional.empty(), OptionalInt.empty())), Requirements.Rule.NONE);
        Requirements.Applied a = rules.apply(JobSpec.parse("[vram=auto] python eval.py --llm 7b"));
        assertEquals(OptionalLong.of(16384), a.spec().vramMib());
        assertTrue(a.spec().learnVram());
        assertEquals(Optional.of("7b"), a.rule());
    }

    @Test
    void aShareIsTheLinesDeclaration_soARulesVramAndGpusLeaveIt() {
        Requirements rules = new Requirements(List.of(), new Requirements.Rule("default", "", false, OptionalLong.of(8192),
                OptionalInt.of(2), Optional.empty(), OptionalInt.empty()));
        JobSpec out = rules.apply(JobSpec.parse("[gpus=0.5] python eval.py")).spec();
        assertEquals("[gpus=0.5] python eval.py", out.toLine());
        assertEquals(OptionalLong.empty(), out.vramMib());
    }
}
