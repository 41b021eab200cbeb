package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Words joined into a shell line come back from /bin/sh as exactly those words. */
class ShellWordsTest {
    @Test
    void safeWordsStayBare_othersAreSingleQuoted() {
        assertEquals("python3 train.py --lr=0.1", ShellWords.join(List.of("python3", "train.py", "--lr=0.1")));
        assertEquals("sh -c 'echo $X; sleep 2'", ShellWords.join(List.of("sh", "-c", "echo $X; sleep 2")));
        assertEquals("echo 'it'\\''s' ''", ShellWords.join(List.of("echo", "it's", "")));
    }

    @Test
    void theShellReadsTheLineBackAsTheSameWords() throws Exception {
        List<String> words = List.of("printf", "%s\\n", "a b", "$HOME", "`id`", "it's", "\"q\"", "", "*", "x;y", "a\nb",
                "~", "ü €", "\\", "-n", "#c");
        String line = ShellWords.join(words);
        Process p = new ProcessBuilder("/bin/sh", "-c", line).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        List<String> expected = new ArrayList<>(words.subList(2, words.size()));
        assertEquals(String.join("\n", expected) + "\n", out, line);
    }

    @Test
    void theBuilderTakesArgvBesideAShellLine() {
        JobSpec exact = JobSpec.builder(List.of("python3", "-c", "print(\"hello world\")")).build();
        assertEquals("python3 -c 'print(\"hello world\")'", exact.command());
        assertEquals("echo $X | wc", JobSpec.builder("echo $X | wc").build().command());
        assertThrows(IllegalArgumentException.class, () -> ShellWords.join(List.of()));
        assertThrows(IllegalArgumentException.class, () -> ShellWords.quote("a\0b"));
    }
}
