package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad value given to one of submit's or srun's options is said in the words typed: {@code bad --gpus '0,1'},
 * not {@code <job>:1: bad gpus 'gpus=0,1'}, the job line the options were written into, which the user never
 * saw and whose "line 1" names nothing they typed. Said before any daemon is asked: a typo is not a
 * question for the lab's daemon.
 */
class BadOptionValueWordsTest {

    private static Optional<String> refusal(String... args) {
        return ClientOptions.refusal(ClientOptions.parse("submit", List.of(args)));
    }

    @Test
    void aListOfGpusGivenToGpus_isAnsweredWithGpuIds_inOptionWords() {
        assertEquals(Optional.of("bad --gpus '0,1'; to run on GPUs 0,1 write --gpu-ids 0,1 (gpus counts GPUs: a whole"
                + " number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5)"),
                refusal("--gpus", "0,1", "--", "python", "train.py"));
        assertEquals(Optional.of("bad --gpus '0-3'; to run on GPUs 0-3 write --gpu-ids 0-3 (gpus counts GPUs: a whole"
                + " number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5)"),
                refusal("-n", "0-3", "--", "python", "train.py"));
    }

    @Test
    void eachBadValue_namesItsOption_andTheFixSpeaksOfOptions() {
        assertEquals(Optional.of("bad --vram '2x'; give positive MiB like 18000, a size like 18G, 1.5GiB, 512MiB (at most"
                + " 2147483647 MiB), or auto to learn it from earlier runs"), refusal("--vram", "2x", "--", "true"));
        assertEquals(Optional.of("bad --on-timeout 'later'; write --on-timeout requeue (a timeout queues the job again, at"
                + " the end) or --on-timeout fail (the default)"), refusal("--on-timeout", "later", "--", "true"));
        assertEquals(Optional.of("bad --conda 'a/b'; give an environment's name (letters, digits, '_', '.', '+', '-'; e.g."
                + " --conda torch) or the absolute path of its prefix (--conda /opt/envs/torch), as conda env list shows"
                + " them"), refusal("--conda", "a/b", "--", "true"));
        assertEquals(Optional.of("bad --priority 'high'; give a whole number from -1000000 to 1000000; higher runs first,"
                + " 0 by default"), refusal("--priority", "high", "--", "true"));
    }

    @Test
    void aValueThatLooksLikeAnAttribute_isQuotedAsTyped() {
        // Only the fix is ours to reword; what the user typed is shown as typed.
        String said = refusal("--priority", "vram=3", "--", "true").orElseThrow();
        assertTrue(said.startsWith("bad --priority 'vram=3'; "), said);
    }

    @Test
    void aFaultOfTheCommand_staysAsTheParserSaysIt_andAGoodLinePasses() {
        assertTrue(refusal("--", "echo a \\").orElseThrow().startsWith("<job>:1: line ends with '\\'"));
        assertEquals(Optional.empty(), refusal("--gpus", "2", "--gpu-ids", "0,1", "--vram", "8G", "--", "python", "train.py"));
    }

    @Test
    void submitSaysItBeforeAskingAnyDaemon(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // No daemon listens there: the refusal comes first, with the daemon's exit status for it.
        int code = new ClientCommand(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                StandardCharsets.UTF_8), r -> { }).run(new String[] {"submit", "--socket", dir.resolve("none.sock").toString(),
                "--gpus", "0,1", "--", "true"});
        assertEquals(1, code);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("gpusched: bad --gpus '0,1'; to run on GPUs 0,1"),
                err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.notExists(dir.resolve("none.sock")));
    }
}
