package io.gpusched.cli;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.ShellWords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * The options of the verbs that talk to a daemon ({@code submit}, {@code srun}, {@code queue}, ...),
 * declared once with picocli's programmatic API: the parser, each verb's {@code --help} and the
 * completions and man page ({@link DistDocs}) are all made from these specs.
 *
 * <p>Why the programmatic API and not annotations: a spec is built for the one verb being run, from
 * plain method calls, so a start loads no annotation and reflects on no field; the attribute options
 * come from the attribute table ({@link Attribute}) the same way for {@code submit} and {@code srun}.
 *
 * <p>The command: with {@code --}, the words after it; one word is a shell line (as a jobs file's line),
 * several are a program and its arguments run exactly as given ({@link ShellWords#join}). Without
 * {@code --}, {@code submit} and {@code srun} take the first word that is no option as the command's
 * start (as Slurm's srun does), the same way.
 */
final class ClientOptions {
    /** The verbs whose options are here, in the order their errors name them. */
    static final List<String> VERBS = List.of("submit", "queue", "show", "info", "cancel", "logs", "attach", "pause",
            "resume", "dashboard", "drain", "srun");

    /** A unit typed as a word of its own after a size: {@code --vram 8 GB}. */
    private static final Pattern UNIT = Pattern.compile("(?i)[kmgt]i?b?|mib|gib");

    /** What a client verb's command line says. */
    record Parsed(String verb, boolean help, boolean json, boolean follow, boolean all, boolean quiet,
                  boolean dryRun, Optional<QueueFormat> format, Optional<Path> output, Optional<String> user, Optional<Path> socket, List<String> attributes,
                  List<String> words) {
        /**
         * @return the job line: the attribute block in the order typed, then the command (one word: a
         *     shell line; several: those words exactly)
         */
        String line() {
            return "[" + String.join(" ", attributes) + "] " + command();
        }

        /** @return the command as the shell line the job runs */
        String command() {
            return words.size() == 1 ? words.get(0) : ShellWords.join(words);
        }
    }

    private ClientOptions() {
    }

    /**
     * @param verb a client verb or {@code srun}
     * @return its picocli spec: options, positional words, usage with the verb's help line and example
     */
    static CommandSpec spec(String verb) {
        CommandSpec s = base(verb, note(verb));
        boolean command = verb.equals("submit") || verb.equals("srun");
        if (command) {
            for (Attribute a : Attribute.ALL) {
                a.flag().ifPresent(f -> {
                    String[] names = a == Attribute.GPUS ? new String[] {"-n", f.option()} : new String[] {f.option()};
                    OptionSpec.Builder o = OptionSpec.builder(names).description(fmt(f.help()));
                    if (a.bare()) {
                        o.arity("0").type(boolean.class);
                    } else {
                        o.arity("1").type(String.class).paramLabel(f.metavar().orElse("VALUE"));
                    }
                    s.addOption(o.build());
                });
            }
        }
        if (verb.equals("submit")) {
            s.addOption(valued(new String[] {"-o", "--output"}, "PATH", "the job's stdout and stderr go to PATH, relative"
                    + " to this directory [the daemon's log directory; ./gpusched-N.log under a root daemon]"));
            s.addOption(flag(new String[] {"-f", "--follow"}, "after the number, follow the job's output as logs -f does;"
                    + " Ctrl-C detaches, the job goes on; else it prints the outcome and exits with the job's status"));
            s.addOption(flag(new String[] {"--dry-run"}, "queue nothing: say where the job would start now, or why it"
                    + " would wait (exit 0), or why it could never run (exit 1)"));
        }
        if (verb.equals("logs")) {
            s.addOption(flag(new String[] {"-f", "--follow"}, "follow the output until the job ends (Ctrl-C detaches)"));
        }
        if (verb.equals("srun")) {
            s.addOption(flag(new String[] {"-q", "--quiet"}, "print only what the command prints"));
        }
        if (verb.equals("queue") || verb.equals("cancel")) {
            s.addOption(valued(new String[] {"--user"}, "U|me", verb.equals("queue") ? "only U's jobs"
                    : "every pending and running job of U (another user's: root and --admin-group members only)"));
        }
        if (verb.equals("queue")) {
            s.addOption(flag(new String[] {"--all"}, "every finished job the daemon holds, not only the last 10 (those"
                    + " of earlier daemons too, from its journal)"));
            s.addOption(valued(new String[] {"--format"}, "SPEC", "the table's columns, as squeue -o: %-fields (\"%i %u %t"
                    + " %.M %30c %r\") or names (job,user,state,time:.6,command:30,reason); a number is the most columns"
                    + " a field takes, a '.' aligns it right; the last column is cut to the terminal"));
        }
        if (Set.of("submit", "queue", "show", "info", "dashboard").contains(verb)) {
            s.addOption(flag(new String[] {"--json"}, "print JSON"));
        }
        s.addOption(valued(new String[] {"--socket"}, "PATH", "the daemon's socket [GPUSCHED_SOCKET, else"
                + " /run/gpusched/gpusched.sock when there, else this user's]"));
        s.addOption(valued(new String[] {"--log-dir"}, "DIR", "a jobs-file run's log directory: its DIR/gpusched.sock"));
        s.addPositional(PositionalParamSpec.builder().arity("0..*").type(List.class).auxiliaryTypes(String.class)
                .paramLabel(positionalLabel(verb)).description(fmt(positionalHelp(verb))).build());
        return s;
    }

    private static String positionalLabel(String verb) {
        return switch (verb) {
            case "submit", "srun" -> "CMD";
            case "show", "logs", "attach", "cancel" -> "N";
            case "pause", "resume" -> "GPU";
            default -> "";
        };
    }

    private static String positionalHelp(String verb) {
        return switch (verb) {
            case "submit", "srun" -> "after --: one word is a shell line (pipes, variables, &&), run by /bin/sh -c as a"
                    + " jobs file's line is; several words are the program and its arguments, run exactly as given";
            case "show", "logs" -> "a job number";
            case "attach" -> "a job number; without one, your jobs with a terminal, or the only one running";
            case "cancel" -> "job numbers";
            case "pause", "resume" -> "GPU indices";
            default -> "none";
        };
    }

    /** What the verb's help says besides its options and example (exit codes, defaults). */
    private static String note(String verb) {
        return switch (verb) {
            case "submit" -> "Prints the job's number. The job runs in this directory, with this environment. A flag"
                    + " sets the attribute a jobs file's [k=v ...] block does (docs/jobs-file.md). Exit 0, 1 when the"
                    + " service refused (the reason is printed), 2 for a bad command line.";
            case "srun" -> "Blocks until the GPUs are granted (saying where it waits and why), then runs CMD in this"
                    + " terminal with CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER and GPUSCHED_* set, and exits with CMD's"
                    + " exit status. The daemon measures its VRAM and journals its outcome like any job's. Ctrl-C while"
                    + " waiting withdraws the request (exit 130); once running, Ctrl-C is the command's. srun runs CMD"
                    + " once: --retries is journaled but a retry is submit's. Exit 1 when the daemon refused or ended"
                    + " the request, 2 for a bad command line.";
            case "queue" -> "A table on a terminal or with --format; " + QueueFormat.known() + ". Plain ASCII when the"
                    + " locale (LC_ALL, LC_CTYPE, LANG) names another charset than UTF-8. A command over 200 characters"
                    + " is shortened, ending in …. Another user's jobs: --user is for root and --admin-group members.";
            case "attach" -> "A job without a terminal: its log, followed as logs N -f. Without N: your jobs with a"
                    + " terminal (tty), listed; when exactly one of them runs, attaches to it. Once tmux returns it says"
                    + " whether you detached (the job keeps running) or how the job ended.";
            case "dashboard" -> "The URL carries your token, so keep it to yourself; valid until the daemon restarts.";
            case "drain" -> "Queued jobs wait in the daemon's journal for the next gpusched serve (root, --admin-group"
                    + " members, or its own user).";
            default -> "";
        };
    }

    /** Prose as lines of at most {@code width} characters, broken between words. */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String w : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + w.length() > width) {
                lines.add(line.toString());
                line = new StringBuilder();
            }
            line.append(line.length() > 0 ? " " : "").append(w);
        }
        lines.add(line.toString());
        return lines;
    }

    static OptionSpec flag(String[] names, String help) {
        return OptionSpec.builder(names).arity("0").type(boolean.class).description(fmt(help)).build();
    }

    static OptionSpec valued(String[] names, String label, String help) {
        return OptionSpec.builder(names).arity("1").type(String.class).paramLabel(label).description(fmt(help)).build();
    }

    /** Text for picocli's usage, which reads it as a format string. */
    private static String fmt(String text) {
        return text.replace("%", "%%");
    }

    /** @return the verb's {@code --help} text */
    static String usage(String verb) {
        StringBuilder b = new StringBuilder(usage(spec(verb))).append("\nExit codes:\n");
        ExitCodes.TABLE.forEach(row -> b.append("  ").append(row).append('\n'));
        return b.toString();
    }

    /**
     * @param verb a client verb or {@code srun}
     * @param args the words after the verb
     * @throws UsageException with one line saying what is wrong and how to fix it
     */
    static Parsed parse(String verb, List<String> args) {
        Optional<Parsed> quick = quickQueue(verb, args);
        return quick.isPresent() ? quick.get() : parseWithSpec(verb, args);
    }

    /**
     * {@code gpusched queue}'s common command lines ({@code --json}, {@code --all}, {@code --user U},
     * {@code --format SPEC}, {@code --socket PATH}, {@code --log-dir DIR}, each also as {@code --name=value})
     * read without building picocli's parser ({@link QuickQueue#line}): building it (its classes, the verb's
     * spec) was about a quarter of the verb's start before the first byte went to the daemon (issue #27). Anything else
     * (help, an unknown or shortened option, a word, a value that starts with {@code -} or is empty) is
     * left to {@link #parseWithSpec}, which reads these lines the same way ({@code ClientOptionsQuickTest}).
     *
     * @return the parsed line; empty when picocli must read it
     */
    static Optional<Parsed> quickQueue(String verb, List<String> args) {
        if (!verb.equals("queue")) {
            return Optional.empty();
        }
        Optional<QuickQueue.Line> read = QuickQueue.line(args);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        String format = read.get().format();
        String socket = read.get().socket();
        String logDir = read.get().logDir();
        Optional<Path> where = socket != null ? Optional.of(Path.of(socket))
                : logDir != null ? Optional.of(Path.of(logDir).resolve(ClientCommand.RUN_SOCKET)) : Optional.empty();
        return Optional.of(new Parsed(verb, false, read.get().json(), false, read.get().all(), false, false,
                format == null ? Optional.empty() : Optional.of(QueueFormat.parse(format)), Optional.empty(),
                Optional.ofNullable(read.get().user()), where, List.of(), List.of()));
    }

    /**
     * {@link #parse} with the verb's picocli spec, whatever the line.
     *
     * @param verb a client verb or {@code srun}
     * @param args the words after the verb
     * @throws UsageException with one line saying what is wrong and how to fix it
     */
    static Parsed parseWithSpec(String verb, List<String> args) {
        int dashes = args.indexOf("--");
        List<String> before = dashes < 0 ? args : args.subList(0, dashes);
        CommandSpec spec = spec(verb);
        ParseResult r = parse(spec, verb, before, verb.equals("submit") || verb.equals("srun"));
        if (r.isUsageHelpRequested()) {
            return new Parsed(verb, true, false, false, false, false, false, Optional.empty(), Optional.empty(),
                    Optional.empty(),
                    Optional.empty(), List.of(), List.of());
        }
        List<String> positional = r.hasMatchedPositional(0) ? r.matchedPositional(0).getValue() : List.of();
        List<String> words = new ArrayList<>(positional);
        if (dashes >= 0) {
            if (!positional.isEmpty() && (verb.equals("submit") || verb.equals("srun"))) {
                throw new UsageException(stray(before, positional.get(0)));
            }
            words.addAll(args.subList(dashes + 1, args.size()));
        }
        if (verb.equals("submit") || verb.equals("srun")) {
            for (int i = 0; i < words.size(); i++) {
                if (hasLineBreak(words.get(i))) {
                    throw new UsageException((words.size() == 1 ? "the command" : "word " + (i + 1) + " of the command")
                            + " holds a line break, but a job is one line: join its lines with ';'"
                            + " (python3 -c 'import a; print(1)'), or put them in a script and " + verb + " that");
                }
            }
        }
        List<String> attributes = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (ArgSpec arg : r.matchedArgs()) {
            if (!(arg instanceof OptionSpec o)) {
                continue;
            }
            Optional<Attribute> a = Attribute.forKey(o.longestName().substring(2))
                    .filter(x -> x.flag().isPresent() && o.longestName().equals(x.flag().get().option()));
            if (a.isEmpty() || !(verb.equals("submit") || verb.equals("srun"))) {
                continue;
            }
            if (!seen.add(a.get().key())) {
                throw new UsageException(o.longestName() + " is given twice; keep one");
            }
            if (!a.get().bare() && o.<String>getValue().indexOf('\n') >= 0) {
                // Said here, naming the flag: the daemon would speak of a job line the user never typed. (A CR is a
                // character a value may hold, as in a jobs file's block.)
                throw new UsageException(o.longestName() + " holds a line break, but a job is one line: join its lines"
                        + " with ';' (" + o.longestName() + " 'a; b'), or put them in a script");
            }
            attributes.add(a.get().bare() ? a.get().key()
                    : a.get().key() + "=" + JobsFileParser.quote(o.<String>getValue()));
        }
        Optional<Path> socket = r.hasMatchedOption("--socket") ? Optional.of(Path.of(r.<String>matchedOptionValue("--socket", "")))
                : r.hasMatchedOption("--log-dir")
                ? Optional.of(Path.of(r.<String>matchedOptionValue("--log-dir", "")).resolve(ClientCommand.RUN_SOCKET))
                : Optional.empty();
        return new Parsed(verb, false, r.matchedOptionValue("--json", false), r.matchedOptionValue("--follow", false),
                r.matchedOptionValue("--all", false), r.matchedOptionValue("--quiet", false),
                r.matchedOptionValue("--dry-run", false),
                r.hasMatchedOption("--format") ? Optional.of(QueueFormat.parse(r.<String>matchedOptionValue("--format", "")))
                        : Optional.empty(),
                r.hasMatchedOption("--output") ? Optional.of(Path.of(r.<String>matchedOptionValue("--output", "")))
                        : Optional.empty(),
                Optional.ofNullable(r.<String>matchedOptionValue("--user", null)), socket, attributes, words);
    }

    /** A line break a command cannot hold: LF, or CR (which ends lines where LF does not). */
    private static boolean hasLineBreak(String s) {
        return s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
    }

    /**
     * Parses with a verb's spec, picocli's errors said as gpusched says errors: one line, what is wrong
     * and how to fix it.
     *
     * @param spec the verb's spec
     * @param verb the verb, for the errors; {@code ""} for a jobs-file run ({@code gpusched JOBS_FILE})
     * @param args the words after the verb
     * @param stopAtPositional whether the first word that is no option starts a command (submit, srun)
     * @throws UsageException with that line
     */
    static ParseResult parse(CommandSpec spec, String verb, List<String> args, boolean stopAtPositional) {
        refuseOptionAsValue(spec, verb, args, stopAtPositional);
        CommandLine cl = new CommandLine(spec);
        // A value is the word typed, dashes and all (--setup '-h  s', --name=-x): picocli would otherwise read a
        // word that starts like one of the verb's options as that option and say the value is missing. The one
        // word refused is an option's own name, by refuseOptionAsValue, before picocli sees it. Not where an
        // option's value is optional (no verb has one; doctor reads serve's --sim N itself): there picocli would
        // take the next option as that value.
        cl.setExpandAtFiles(false).setOverwrittenOptionsAllowed(true).setStopAtPositional(stopAtPositional)
                .setAllowOptionsAsOptionParameters(spec.options().stream()
                        .noneMatch(o -> o.arity().min() == 0 && o.arity().max() > 0));
        try {
            ParseResult r = cl.parseArgs(args.toArray(String[]::new));
            if (!r.isUsageHelpRequested()) {
                refuseRepeats(r);
                for (OptionSpec o : r.matchedOptions()) {
                    if (o.arity().max() > 0 && o.getValue() instanceof String v) {
                        Optional<String> empty = OptionValues.emptyValue(o.longestName(), o.paramLabel(), v);
                        if (empty.isPresent()) {
                            throw new UsageException(empty.get());
                        }
                    }
                }
            }
            return r;
        } catch (CommandLine.UnmatchedArgumentException e) {
            String bad = e.getUnmatched().isEmpty() ? "?" : e.getUnmatched().get(0);
            throw new UsageException(unknownOption(verb, bad, spec));
        } catch (CommandLine.MissingParameterException e) {
            String option = e.getMissing().isEmpty() ? "an option" : name(e.getMissing().get(0));
            throw new UsageException(option + " needs a value (see " + seeHelp(verb) + ")");
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(e.getMessage() + " (see " + seeHelp(verb) + ")");
        }
    }

    /**
     * Refuses an option whose value, as the next word, is the name of one of the verb's options
     * ({@code --name --vram 2G -- train.py}): that is a value forgotten far more often than meant, and taken
     * as typed it would shift every word after it. {@code --name=--vram} says the word is meant and is let be.
     * The walk stops where options stop: at {@code --}, and at the first command word when
     * {@code stopAtPositional}.
     *
     * @throws UsageException naming the option, the word and how to give it as the value
     */
    private static void refuseOptionAsValue(CommandSpec spec, String verb, List<String> args, boolean stopAtPositional) {
        for (int i = 0; i < args.size(); i++) {
            String word = args.get(i);
            if (word.equals("--") || (stopAtPositional && !word.startsWith("-"))) {
                return;
            }
            OptionSpec option = spec.optionsMap().get(word);
            if (option == null || option.arity().min() < 1 || i + 1 >= args.size()) {
                continue;
            }
            String next = args.get(++i);
            if (spec.optionsMap().containsKey(next)) {
                String of = verb.isEmpty() ? "gpusched" : "gpusched " + verb;
                throw new UsageException(word + " needs a value, and " + next + " is an option of " + of + " (to give "
                        + word + " the word " + next + ", write " + word + "=" + next + ")");
            }
        }
    }

    /**
     * Refuses an option that takes a value given more than once: picocli would keep the last value and
     * drop the others unsaid ({@code --log-dir a --log-dir b} ran on b). No option of gpusched's is meant
     * to repeat; a flag given twice says the same thing twice and is let be.
     *
     * @throws UsageException naming the option and every value given
     */
    private static void refuseRepeats(ParseResult r) {
        for (OptionSpec o : new LinkedHashSet<>(r.matchedOptions())) {
            if (o.arity().max() > 0 && o.originalStringValues().size() > 1) {
                throw new UsageException(OptionValues.givenTwice(o.longestName(), o.originalStringValues()));
            }
        }
    }

    /** Where a verb's options are told: {@code gpusched VERB --help}, or {@code gpusched --help} for a run. */
    private static String seeHelp(String verb) {
        return verb.isEmpty() ? "gpusched --help" : "gpusched " + verb + " --help";
    }

    /** The usage text of a spec, as {@code --help} prints it. */
    static String usage(CommandSpec spec) {
        return new CommandLine(spec).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /**
     * A spec with gpusched's usage layout: the verb's help line, {@code -h/--help}, and the example and
     * notes as the footer.
     */
    static CommandSpec base(String verb, String note) {
        CommandSpec s = CommandSpec.create().name("gpusched " + verb);
        Verbs.Verb v = Verbs.find(verb).orElseThrow();
        List<String> footer = new ArrayList<>(List.of("  " + v.example()));
        if (!note.isEmpty()) {
            footer.add("");
            footer.addAll(wrap(note, 99));
        }
        s.usageMessage().width(100).sortOptions(false).sortSynopsis(false).description(fmt(v.help()))
                .footerHeading("%nExample:%n").footer(footer.stream().map(ClientOptions::fmt).toArray(String[]::new));
        s.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("print this help").build());
        return s;
    }

    /** A word before {@code --} that is neither an option nor its value: most often half of a value. */
    private static String stray(List<String> before, String word) {
        int at = before.indexOf(word);
        if (at >= 2 && before.get(at - 2).startsWith("--") && UNIT.matcher(word).matches()) {
            String option = before.get(at - 2);
            return "bad size for " + option + ": '" + before.get(at - 1) + " " + word + "' is two words; write "
                    + option + " " + before.get(at - 1) + word + " (e.g. --vram 8G)";
        }
        return "'" + word + "' before -- is neither an option nor an option's value; put the whole command after --";
    }

    private static String name(ArgSpec a) {
        return a instanceof OptionSpec o ? o.longestName() : a.paramLabel();
    }

    /**
     * Why the daemon would refuse a submit's or srun's job line, read here as it will read it: a bad
     * value of an option said in the words typed ({@code bad --gpus '0,1' (… write --gpu-ids 0,1)}),
     * not as the {@code [gpus=0,1]} block the options were written into, which the user never saw;
     * a fault of the command itself as the line's parser says it.
     *
     * @param p a submit's or srun's parsed command line
     * @return the one-line error, without the {@code gpusched: } prefix; empty when the line is good
     */
    static Optional<String> refusal(Parsed p) {
        try {
            io.gpusched.jobs.JobSpec.parse(p.line());
            return Optional.empty();
        } catch (io.gpusched.jobs.JobSpecException e) {
            return Optional.of(inOptionWords(e));
        }
    }

    /** A job line's error, with each attribute that has an option named as that option. */
    static String inOptionWords(io.gpusched.jobs.JobSpecException e) {
        String said = e.getMessage();
        String where = e.source() + ":" + e.line() + ": ";
        int eq = e.token().indexOf('=');
        Optional<Attribute> bad = eq > 0 ? Attribute.forKey(e.token().substring(0, eq)).filter(a -> a.flag().isPresent())
                : Optional.empty();
        if (!said.startsWith(where) || bad.isEmpty()) {
            return said;
        }
        String detail = said.substring(where.length());
        // The fix is ours and may name other attributes (write gpu-ids=0,1): each is said as its option.
        // The rest quotes what was typed, which stays as typed but for the key written before it.
        String fix = e.expected();
        int at = detail.endsWith(fix) ? detail.length() - fix.length() : detail.length();
        for (Attribute a : Attribute.ALL) {
            if (a.flag().isPresent() && !a.bare()) {
                fix = fix.replaceAll("(?<![\\w'=-])" + Pattern.quote(a.key()) + "=",
                        java.util.regex.Matcher.quoteReplacement(a.flag().get().option() + " "));
            }
        }
        String key = bad.get().key();
        String head = detail.substring(0, at).replaceFirst("'" + Pattern.quote(key) + "=", "'")
                .replaceFirst("^bad " + Pattern.quote(key) + "\\b", java.util.regex.Matcher.quoteReplacement("bad "
                        + bad.get().flag().get().option()));
        detail = head + (at < detail.length() ? fix : "");
        return detail;
    }

    /**
     * The options of the submitting commands of the tools docs/coming-from.md leads users from, each with
     * ours: an mgpu or scheduler.py user's line typed as before is answered with its translation rather
     * than with a nearest spelling (none of these is near ours).
     */
    static final Map<String, String> OTHER_TOOLS = Map.of(
            "--mem", "mgpu's --mem 8000 (MiB per GPU) is --vram 8000 here",
            "--time-limit", "mgpu's --time-limit 600 (seconds) is --timeout 600 here",
            "--env-setup-cmd", "mgpu's --env-setup-cmd TEXT is --setup TEXT here ('conda activate ENV' is --conda ENV)",
            "--interactive", "mgpu's --interactive is gpusched submit --follow here (its output in this terminal;"
                    + " Ctrl-C detaches, the job goes on)",
            "--args", "scheduler.py's --args are the words after the script here: gpusched submit -- python"
                    + " script.py ARGS");

    /**
     * Options of local-gpu-scheduler's {@code run_server.py} that {@code gpusched serve} has no option
     * for, with what does their job here ({@code --port} was told "did you mean --poll?").
     */
    static final Map<String, String> OTHER_SERVERS = Map.of(
            "--port", "run_server.py's --port: clients reach the daemon on a UNIX socket here (--socket PATH), and"
                    + " --dashboard PORT serves /status and /jobs over HTTP",
            "--detach", "run_server.py's --detach: serve stays in the foreground here; run it under systemd"
                    + " (systemctl --user enable --now gpusched) or as nohup gpusched serve ... &");

    /**
     * The line for an option this verb does not take: the verbs that do take it, else the nearest of
     * its own options. A client verb's neighbours are the other client verbs; a run's ({@code verb} "")
     * is serve.
     */
    private static String unknownOption(String verb, String option, CommandSpec spec) {
        String bare = option.contains("=") && option.startsWith("--") ? option.substring(0, option.indexOf('=')) : option;
        if (!bare.startsWith("-")) {
            return switch (verb) {
                case "" -> "one jobs file only; '" + option + "' is a second (see gpusched --help)";
                case "serve" -> "serve takes no jobs file argument; to watch one too, use --jobs " + option
                        + " (see gpusched serve --help)";
                default -> verb + " takes no argument '" + option + "' (see gpusched " + verb + " --help)";
            };
        }
        List<String> owners = new ArrayList<>();
        for (String other : VERBS.contains(verb) ? VERBS : verb.isEmpty() ? List.of("serve") : List.<String>of()) {
            CommandSpec theirs = other.equals("serve") ? CliArgs.spec(true) : spec(other);
            if (!other.equals(verb) && !other.equals("srun") && theirs.optionsMap().containsKey(bare)) {
                owners.add("gpusched " + other);
            }
        }
        if (owners.size() > 2) {
            owners = owners.subList(0, 2);
        }
        if (!owners.isEmpty()) {
            return bare + " is an option of " + String.join(" and ", owners)
                    + (verb.isEmpty() ? ServeJobRules.IN_A_JOBS_FILE.getOrDefault(bare, "") : "");
        }
        Map<String, OptionSpec> own = spec.optionsMap();
        if (verb.equals("serve") && OTHER_SERVERS.containsKey(bare)) {
            return "unknown option " + bare + " for gpusched serve — " + OTHER_SERVERS.get(bare)
                    + " (see " + seeHelp(verb) + ")";
        }
        if ((verb.equals("submit") || verb.equals("srun")) && OTHER_TOOLS.containsKey(bare)) {
            return "unknown option " + bare + " for gpusched " + verb + " — " + OTHER_TOOLS.get(bare)
                    + " (see " + seeHelp(verb) + ")";
        }
        return "unknown option " + bare + (verb.isEmpty() ? "" : " for gpusched " + verb)
                + io.gpusched.jobs.DidYouMean.suggest(bare.replaceFirst("^-+", ""),
                        own.keySet().stream().filter(k -> k.startsWith("--")).map(k -> k.substring(2)).toList())
                        .map(s -> " — did you mean --" + s + "?").orElse("")
                + " (see " + seeHelp(verb) + ")";
    }
}
