package io.gpusched.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code gpusched convert --from gpu_scheduler FILE}: another tool's jobs file as ours, on stdout; one
 * warning line on stderr per input line with something that has no equivalent, or that could not be
 * converted (it is left out). Exit 0, 1 when a line was left out, 2 for a bad command line.
 */
final class ConvertCommand {
    static final String HELP = String.join("\n",
            "usage: gpusched convert --from gpu_scheduler FILE > jobs.txt",
            "",
            "Writes FILE, a jobs file of the fractional screen scheduler (scheduler.py: lines",
            "priority,script_path,conda_env,arguments,allowed_gpus), as a gpusched jobs file on stdout:",
            "priority negated (there lower runs first, here higher), conda_env as conda=, allowed_gpus as",
            "gpu-ids=, the command python SCRIPT ARGUMENTS. Comments and blank lines are kept, a header line",
            "dropped. stderr gets one line per input line with something gpusched has no equivalent for (its",
            "--cuda rewriting) or that is not a job line (left out). Exit 0, 1 when a line was left out, 2 for",
            "a bad command line.");

    private ConvertCommand() {
    }

    static int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = List.of(argv).subList(1, argv.length);
        if (args.contains("-h") || args.contains("--help")) {
            out.println(HELP);
            return 0;
        }
        if (args.size() != 3 || !args.get(0).equals("--from")) {
            err.println("gpusched: convert takes --from gpu_scheduler FILE (see gpusched convert --help)");
            return Cli.USAGE;
        }
        if (!args.get(1).equals("gpu_scheduler")) {
            err.println("gpusched: convert knows --from gpu_scheduler only, not " + args.get(1));
            return Cli.USAGE;
        }
        Path file = Path.of(args.get(2));
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("gpusched: cannot read " + file + ": " + e.getMessage());
            return 1;
        }
        boolean anyBad = false;
        for (int i = 0; i < lines.size(); i++) {
            GpuSchedulerCsv.Converted c = GpuSchedulerCsv.convert(file.toString(), i + 1, lines.get(i));
            c.line().ifPresent(out::println);
            c.warning().ifPresent(err::println);
            anyBad |= c.bad();
        }
        return anyBad ? 1 : 0;
    }
}
