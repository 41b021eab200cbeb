package io.gpusched.cli;

import io.gpusched.jobs.DidYouMean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The verbs of {@code gpusched}, each with its one-line help and an example: what bare {@code gpusched}
 * lists, what a mistyped verb is matched against, and the summary line of each verb's {@code --help},
 * man page section and completion. The one list of verbs: {@link Cli} dispatches on it.
 */
final class Verbs {
    /** One verb: its name, what it does in one line, and a command line that uses it. */
    record Verb(String name, String help, String example) {
    }

    static final List<Verb> ALL = List.of(
            new Verb("serve", "a daemon on a UNIX socket that this machine's users share",
                    "gpusched serve --sim 2 --socket /tmp/gpusched.sock"),
            new Verb("submit", "queue a command with the daemon and print its number",
                    "gpusched submit --vram 18G --timeout 2h -- python3 train.py --lr 0.1"),
            new Verb("srun", "wait for GPUs, then run a command in this terminal and exit with its status",
                    "gpusched srun --vram 8G -- python3 -c 'import torch; print(torch.cuda.device_count())'"),
            new Verb("queue", "the queue: running, pending (and why), the last jobs done", "gpusched queue --user me"),
            new Verb("show", "one job: where it is, why it waits, its whole command", "gpusched show 3"),
            new Verb("info", "the GPUs: memory, utilisation, paused or not", "gpusched info --json"),
            new Verb("cancel", "cancel jobs by number, or every job of a user", "gpusched cancel 3 4"),
            new Verb("logs", "a job's output; -f follows it until the job ends", "gpusched logs -f 3"),
            new Verb("attach", "a [tty] job's terminal (Ctrl-b d detaches)", "gpusched attach 3"),
            new Verb("pause", "start no new job on these GPUs", "gpusched pause 1"),
            new Verb("resume", "let paused GPUs take jobs again", "gpusched resume 1"),
            new Verb("dashboard", "your URL of the daemon's web dashboard", "gpusched dashboard"),
            new Verb("drain", "the daemon starts no job and exits once the running ones end", "gpusched drain"),
            new Verb("top", "the GPUs and the queue, live", "gpusched top --interval 2"),
            new Verb("status", "a run's status board, from its log directory", "gpusched status --log-dir gpusched_logs"),
            new Verb("stats", "jobs, GPU-hours, waits and utilisation, from the journal", "gpusched stats --since 7d"),
            new Verb("simulate", "replay a jobs file's placement on a pretend clock", "gpusched simulate jobs.txt --gpus-spec 4x80G"),
            new Verb("doctor", "check this machine for gpusched serve", "gpusched doctor"),
            new Verb("convert", "another tool's jobs file as ours, on stdout", "gpusched convert --from gpu_scheduler jobs.csv"),
            new Verb("help", "a jobs-file run's options (gpusched serve --help: the daemon's)", "gpusched help"),
            new Verb("version", "the version, git revision, build date and Java runtime", "gpusched version"));

    private Verbs() {
    }

    /** @return the verb named {@code name}, if it is one */
    static Optional<Verb> find(String name) {
        return ALL.stream().filter(v -> v.name().equals(name)).findFirst();
    }

    /** What bare {@code gpusched} prints: how to run a jobs file, then each verb with its help line. */
    static String listing() {
        List<String> lines = new ArrayList<>();
        lines.add("usage: gpusched JOBS_FILE [options]   run the jobs file's commands on this machine's GPUs");
        lines.add("       gpusched VERB [options]        one of:");
        lines.add("");
        for (Verb v : ALL) {
            lines.add("  " + v.name() + " ".repeat(Math.max(2, 12 - v.name().length())) + v.help());
        }
        lines.add("");
        lines.add("gpusched VERB --help shows a verb's options and an example; gpusched --help a run's options.");
        return String.join("\n", lines);
    }

    /**
     * Whether a first word that is no verb should be refused as a mistyped verb rather than run as a
     * jobs file: a plain word (no {@code /}, no {@code .}) that is not an existing file. {@code gpusched
     * FILE} runs an existing file of any name.
     */
    static boolean mistyped(String word) {
        return !word.isEmpty() && !word.startsWith("-") && word.indexOf('/') < 0 && word.indexOf('.') < 0
                && !Files.exists(Path.of(word));
    }

    /**
     * The verbs of the tools docs/coming-from.md leads users from that are not ours by name, each with
     * ours ({@code tgpu submit} and {@code cancel}, scheduler.py's {@code status}, {@code pause} and
     * {@code resume} are ours already).
     */
    static final java.util.Map<String, String> OTHER_TOOLS = java.util.Map.of(
            "list", "tgpu's list is gpusched queue here",
            "add", "scheduler.py's add is gpusched submit here (gpusched submit --conda ENV -- python script.py ARGS)",
            "screens", "scheduler.py's screens is gpusched attach here (your jobs with a terminal)",
            "start", "scheduler.py's start is gpusched serve here (or gpusched JOBS_FILE for one jobs file)");

    /** The one-line error for a mistyped verb, with the nearest verb when one is near. */
    static String unknown(String word) {
        Optional<String> near = Optional.ofNullable(OTHER_TOOLS.get(word)).map(s -> " — " + s)
                .or(() -> DidYouMean.suggest(word, ALL.stream().map(Verb::name).toList()).map(n -> " — did you mean " + n + "?"));
        return "'" + word + "' is not a verb" + near.orElse("")
                + " (gpusched alone lists the verbs; a jobs file of that name is not here)";
    }
}
