package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * gpusched(1) in roff (the man macros), made from the help texts {@code --help} prints, at build time
 * (see {@link DistDocs}): the run's usage as SYNOPSIS, its option lines as OPTIONS, the other verbs'
 * help under COMMANDS, the configuration file's under CONFIGURATION FILE.
 */
final class ManPage {
    /** A verb's section: the title and the help text it prints. */
    record Section(String title, String help) {
    }

    private ManPage() {
    }

    /**
     * @param version the version for the footer, e.g. 0.1.0
     * @param main the run's help ({@link CliArgs#help(boolean)}): usage block, description, options, notes
     * @param commands the other verbs' help texts, each under its own subsection
     * @param configuration the configuration file's description
     */
    static String render(String version, String main, List<Section> commands, String configuration) {
        StringBuilder out = new StringBuilder();
        out.append(".\\\" Generated from gpusched's --help texts by io.gpusched.cli.ManPage; do not edit.\n");
        out.append(".TH GPUSCHED 1 \"\" \"gpusched ").append(escape(version)).append("\" \"User Commands\"\n");
        out.append(".SH NAME\ngpusched \\- a VRAM\\-aware GPU job scheduler for one Linux machine\n");
        List<List<String>> blocks = HelpText.blocks(main);
        out.append(".SH SYNOPSIS\n");
        preformatted(out, blocks.get(0).stream().map(l -> l.replaceFirst("^(?i)usage: ", "").replaceFirst("^ {7}", "")).toList());
        // Before the options: the description; after them, the exit codes and notes, each in its section.
        List<List<String>> description = new ArrayList<>();
        List<List<String>> exit = new ArrayList<>();
        List<List<String>> notes = new ArrayList<>();
        List<String> options = List.of();
        for (List<String> block : blocks.subList(1, blocks.size())) {
            if (block.get(0).startsWith("options")) {
                options = block.subList(1, block.size());
            } else if (block.get(0).startsWith("exit code")) {
                exit.add(block);
            } else {
                (options.isEmpty() ? description : notes).add(block);
            }
        }
        out.append(".SH DESCRIPTION\n");
        description.forEach(b -> block(out, b));
        out.append(".SH OPTIONS\n");
        options(out, options);
        if (!exit.isEmpty()) {
            out.append(".SH \"EXIT STATUS\"\n");
            exit.forEach(b -> block(out, b));
        }
        out.append(".SH COMMANDS\n");
        for (Section s : commands) {
            out.append(".SS \"").append(escape(s.title())).append("\"\n");
            for (List<String> block : HelpText.blocks(s.help())) {
                block(out, block);
            }
        }
        out.append(".SH \"CONFIGURATION FILE\"\n");
        for (List<String> block : HelpText.blocks(configuration)) {
            block(out, block);
        }
        out.append(".SH FILES\n");
        for (String[] f : new String[][] {
                {"/etc/gpusched/gpusched.conf", "the root daemon's options (see CONFIGURATION FILE)"},
                {"/run/gpusched/gpusched.sock", "the root daemon's socket, for every user"},
                {"/var/lib/gpusched", "the root daemon's journal and job logs (mode 0700)"}}) {
            out.append(".TP\n.I ").append(escape(f[0])).append('\n').append(escape(f[1])).append('\n');
        }
        if (!notes.isEmpty()) {
            out.append(".SH NOTES\n");
            notes.forEach(b -> block(out, b));
        }
        out.append(".SH \"SEE ALSO\"\n.BR systemctl (1),\n.BR nvidia\\-smi (1)\n");
        return out.toString();
    }

    /** One block of a help text: options, preformatted (usage, aligned columns) or a paragraph. */
    private static void block(StringBuilder out, List<String> block) {
        if (block.stream().allMatch(l -> HelpText.isOptionLine(l) || l.startsWith("    "))
                && HelpText.isOptionLine(block.get(0))) {
            options(out, block);
        } else if (block.get(0).startsWith("options") && block.size() > 1 && HelpText.isOptionLine(block.get(1))) {
            out.append(".PP\n").append(escape(block.get(0))).append('\n');
            options(out, block.subList(1, block.size()));
        } else if (block.get(0).toLowerCase(java.util.Locale.ROOT).startsWith("usage:") || block.stream().anyMatch(l -> l.startsWith(" "))) {
            preformatted(out, block);
        } else {
            out.append(".PP\n");
            block.forEach(l -> out.append(escape(l)).append('\n'));
        }
    }

    private static void options(StringBuilder out, List<String> lines) {
        for (HelpText.Option o : HelpText.options(String.join("\n", lines))) {
            out.append(".TP\n");
            o.letter().ifPresent(c -> out.append("\\fB\\-").append(c).append("\\fR, "));
            out.append("\\fB\\-\\-").append(escape(o.name())).append("\\fR");
            o.metavar().ifPresent(m -> out.append(" \\fI").append(escape(m)).append("\\fR"));
            out.append('\n').append(escape(o.description())).append('\n');
        }
    }

    private static void preformatted(StringBuilder out, List<String> lines) {
        out.append(".PP\n.nf\n");
        lines.forEach(l -> out.append(escape(l)).append('\n'));
        out.append(".fi\n");
    }

    /**
     * Text safe in roff: a backslash printed as one, minus signs as minus (so options copy and paste), and
     * a line that would start with a control character ({@code .} or {@code '}) protected.
     */
    static String escape(String text) {
        String s = text.replace("\\", "\\e").replace("-", "\\-");
        // Help texts say … and —: roff reads only ASCII, so those become its Unicode escapes.
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (c < 128) {
                b.appendCodePoint(c);
            } else {
                b.append(String.format("\\[u%04X]", c));
            }
        });
        s = b.toString();
        return s.startsWith(".") || s.startsWith("'") ? "\\&" + s : s;
    }
}
