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
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("convert", "Writes FILE, a jobs file of the"
                + " fractional screen scheduler (scheduler.py: lines priority,script_path,conda_env,arguments,allowed_gpus),"
                + " as a gpusched jobs file on stdout: priority negated (there lower runs first, here higher), conda_env"
                + " as conda=, allowed_gpus as gpu-ids= (with gpus=1: any one of them), the command python SCRIPT ARGUMENTS,"
                + " and every line unique (a job added again once it succeeded, or while it is queued or running, is not"
                + " run again, as there). Comments and blank lines are"
                + " kept, a header line dropped. stderr gets one line per input line with something gpusched has no"
                + " equivalent for (its --cuda rewriting) or that is not a job line (left out). Exit 0, 1 when a line was"
                + " left out, 2 for a bad command line.");
        s.addOption(ClientOptions.valued(new String[] {"--from"}, "TOOL", "whose jobs file FILE is: gpu_scheduler"));
        s.addPositional(picocli.CommandLine.Model.PositionalParamSpec.builder().arity("0..*").type(List.class)
                .auxiliaryTypes(String.class).paramLabel("FILE").description("the file to convert").build());
        return s;
    }

    private ConvertCommand() {
    }

    static int run(String[] argv, PrintStream out, PrintStream err) {
        picocli.CommandLine.ParseResult r;
        try {
            r = ClientOptions.parse(spec(), "convert", List.of(argv).subList(1, argv.length), false);
        } catch (UsageException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
        if (r.isUsageHelpRequested()) {
            out.print(ClientOptions.usage(r.commandSpec()));
            return 0;
        }
        List<String> files = r.hasMatchedPositional(0) ? r.matchedPositional(0).getValue() : List.of();
        if (!r.hasMatchedOption("--from") || files.size() != 1) {
            err.println("gpusched: convert takes --from gpu_scheduler FILE (see gpusched convert --help)");
            return Cli.USAGE;
        }
        String from = r.matchedOptionValue("--from", "");
        if (!from.equals("gpu_scheduler")) {
            err.println("gpusched: convert knows --from gpu_scheduler only, not " + from);
            return Cli.USAGE;
        }
        Path file = Path.of(files.get(0));
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            err.println("gpusched: cannot read " + file + ": " + e.getMessage());
            return 1;
        }
        // Lines as Files.readAllLines counts them (LF, CR LF, CR), which the conversion's numbers follow.
        java.util.OptionalInt bad = Utf8Lines.firstBadLine(bytes, true);
        if (bad.isPresent()) {
            err.println("gpusched convert: " + file + ":" + bad.getAsInt() + ": line is not valid UTF-8; save the file as"
                    + " UTF-8 (iconv -f latin1 -t utf-8)");
            return 1;
        }
        List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
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
