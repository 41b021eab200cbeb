package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user of a tool docs/coming-from.md leads from types out of habit is answered with ours: mgpu's
 * and scheduler.py's submitting options, tgpu's and scheduler.py's verbs, and scheduler.py's
 * {@code status} where a daemon's user has no status board. Each was "unknown option --mem" or "'list' is
 * not a verb" with no way on, or a status error naming only a log directory.
 */
class OtherToolsWordsTest {

    private static String refused(String verb, String... args) {
        return assertThrows(UsageException.class, () -> ClientOptions.parse(verb, List.of(args))).getMessage();
    }

    @Test
    void mgpusAndSchedulerPysOptions_areAnsweredWithOurs() {
        assertEquals("unknown option --mem for gpusched submit — mgpu's --mem 8000 (MiB per GPU) is --vram 8000 here"
                + " (see gpusched submit --help)", refused("submit", "--gpu-ids", "0,1", "--mem", "8000", "--", "torchrun"));
        assertEquals("unknown option --time-limit for gpusched submit — mgpu's --time-limit 600 (seconds) is --timeout"
                + " 600 here (see gpusched submit --help)", refused("submit", "--time-limit", "600", "--", "x"));
        assertEquals("unknown option --env-setup-cmd for gpusched srun — mgpu's --env-setup-cmd TEXT is --setup TEXT"
                + " here ('conda activate ENV' is --conda ENV) (see gpusched srun --help)",
                refused("srun", "--env-setup-cmd", "source venv/bin/activate", "--", "x"));
        assertEquals("unknown option --interactive for gpusched submit — mgpu's --interactive is gpusched submit"
                + " --follow here (its output in this terminal; Ctrl-C detaches, the job goes on) (see gpusched submit"
                + " --help)", refused("submit", "--interactive", "--", "python", "train.py"));
        assertEquals("unknown option --args for gpusched submit — scheduler.py's --args are the words after the script"
                + " here: gpusched submit -- python script.py ARGS (see gpusched submit --help)",
                refused("submit", "--args=--llm x", "--", "python", "s.py"));
        // What is no other tool's still gets the nearest of ours.
        assertEquals("unknown option --vrm for gpusched submit — did you mean --vram? (see gpusched submit --help)",
                refused("submit", "--vrm", "2G", "--", "x"));
        // Each translation names options that exist.
        for (String ours : List.of("--vram", "--timeout", "--setup", "--conda", "--follow")) {
            assertEquals(true, ClientOptions.spec("submit").optionsMap().containsKey(ours), ours);
        }
    }

    @Test
    void tgpusAndSchedulerPysVerbs_areAnsweredWithOurs() {
        assertEquals("'list' is not a verb — tgpu's list is gpusched queue here (gpusched alone lists the verbs; a jobs"
                + " file of that name is not here)", Verbs.unknown("list"));
        assertEquals("'screens' is not a verb — scheduler.py's screens is gpusched attach here (your jobs with a"
                + " terminal) (gpusched alone lists the verbs; a jobs file of that name is not here)", Verbs.unknown("screens"));
        assertEquals("'add' is not a verb — scheduler.py's add is gpusched submit here (gpusched submit --conda ENV --"
                + " python script.py ARGS) (gpusched alone lists the verbs; a jobs file of that name is not here)",
                Verbs.unknown("add"));
        assertEquals("'start' is not a verb — scheduler.py's start is gpusched serve here (or gpusched JOBS_FILE for one"
                + " jobs file) (gpusched alone lists the verbs; a jobs file of that name is not here)", Verbs.unknown("start"));
        assertEquals("'qeue' is not a verb — did you mean queue? (gpusched alone lists the verbs; a jobs file of that"
                + " name is not here)", Verbs.unknown("qeue"));
        for (String ours : List.of("queue", "submit", "attach", "serve")) {
            assertEquals(true, Verbs.find(ours).isPresent(), ours);
        }
    }

    @Test
    void statusWithNoBoardHere_namesTheDaemonsVerbs_butNotWhenTheLogDirWasGiven(@TempDir Path dir) {
        assumeFalse(Files.exists(Path.of("gpusched_logs")), "a gpusched_logs here would be read");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(1, new StatusCommand(out, e).run());
        assertEquals("gpusched status: no status board in gpusched_logs (no scheduler has run there; try --log-dir);"
                + " a daemon's queue and GPUs (gpusched serve): gpusched queue, gpusched info\n",
                err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(1, new StatusCommand(out, e).run("--log-dir", dir.toString()));
        assertEquals("gpusched status: no status board in " + dir + " (no scheduler has run there; try --log-dir)\n",
                err.toString(StandardCharsets.UTF_8));
    }
}
