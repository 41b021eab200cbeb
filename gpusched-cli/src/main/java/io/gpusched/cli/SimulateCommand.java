package io.gpusched.cli;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.event.TerminalText;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.Units;
import io.gpusched.testkit.replay.GpuSpec;
import io.gpusched.testkit.replay.Replay;
import io.gpusched.testkit.replay.ReplayJob;
import io.gpusched.testkit.replay.ReplayResult;
import io.gpusched.testkit.replay.ReplayWorkload;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code gpusched simulate JOBS_FILE --gpus-spec 4x80G}: replays the placement policy over a jobs
 * file with no processes and no overhead, and prints the makespan and each GPU's timeline. See
 * {@link ReplayWorkload} for where durations come from.
 */
final class SimulateCommand {
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("simulate", "Replays the placement policy over"
                + " JOBS_FILE with a discrete-event clock (no processes, no polling): every job starts the moment it fits"
                + " and runs for its duration. Prints the makespan and each GPU's timeline: the lower bound for a real run"
                + " on that machine. A job's duration: a trailing '# duration=DUR' comment on its line (DUR: 90, 1.5s, 2m,"
                + " 3h); else, for a $GPUSCHED_SIMJOB line, its --ramp + --hold (defaults 0.5 + 1 s, --vram as the actual"
                + " peak); else --default-duration. '# ... peak=MIB' on a line gives its actual peak, '# ... at=DUR' when"
                + " it joins the queue (default: at the start). A job whose timeout= is shorter than its duration is"
                + " stopped at the limit and ends as a timeout, freeing its GPUs then, as in a real run. Exit 0; 2 for a"
                + " bad command line or jobs file.");
        s.addOption(ClientOptions.valued(new String[] {"--gpus-spec"}, "SPEC", "the machine, e.g. 4x80G or"
                + " 2x24000,1x48G [1x24000]"));
        s.addOption(ClientOptions.valued(new String[] {"--margin"}, "MIB", "MiB added to every declaration [512]"));
        s.addOption(ClientOptions.valued(new String[] {"--idle-threshold"}, "MIB", "idle threshold for undeclared jobs [200]"));
        s.addOption(ClientOptions.valued(new String[] {"--spike-buffer"}, "F", "buffer over peaks that exceed declarations"
                + " [0.10]"));
        s.addOption(ClientOptions.flag(new String[] {"--exclusive"}, "one job per GPU"));
        s.addOption(ClientOptions.valued(new String[] {"--requirements"}, "FILE", "requirement rules, as for a run: what a"
                + " command implies when its line does not say (see gpusched --help)"));
        s.addOption(ClientOptions.flag(new String[] {"--auto-vram"}, "as for a run: every line without vram= learns it, as"
                + " [vram=auto] does"));
        s.addOption(ClientOptions.valued(new String[] {"--learn-from"}, "JOURNAL", "the peaks learning lines learn from: a"
                + " run's journal.jsonl, or one a replay saved [none: learning lines ask for their rule's figure or run"
                + " alone]"));
        s.addOption(ClientOptions.valued(new String[] {"--save-journal"}, "FILE", "write this replay's jobs and peaks as a"
                + " journal (FILE must not exist), for the next replay's --learn-from"));
        s.addOption(ClientOptions.valued(new String[] {"--default-duration"}, "D", "duration of lines that state none"
                + " [none: such a line is an error]"));
        s.addOption(ClientOptions.valued(new String[] {"--age-step"}, "D", "as for a run: one priority level per D waited"
                + " [15m]"));
        s.addOption(ClientOptions.valued(new String[] {"--reserve-after"}, "D|never", "as for a run: reserve GPUs for the"
                + " head of the queue after D [30m]"));
        s.addOption(ClientOptions.flag(new String[] {"--jobs"}, "also list every job's GPUs, start and end"));
        s.addPositional(picocli.CommandLine.Model.PositionalParamSpec.builder().arity("0..1").type(String.class)
                .paramLabel("JOBS_FILE").description("the jobs file to replay").build());
        return s;
    }

    private SimulateCommand() {
    }

    static int run(String[] argv, PrintStream out, PrintStream err) {
        Path file = null;
        String spec = "1x24000";
        io.gpusched.policy.PolicyOptions queue = io.gpusched.policy.PolicyOptions.defaults();
        PlacementPolicy d = PlacementPolicy.defaults();
        long margin = d.marginMib();
        long idle = d.idleThresholdMib();
        double spike = d.spikeBuffer();
        boolean exclusive = false;
        boolean listJobs = false;
        Optional<Duration> defaultDuration = Optional.empty();
        Optional<Path> requirements = Optional.empty();
        Optional<Path> learnFrom = Optional.empty();
        Optional<Path> saveJournal = Optional.empty();
        boolean autoVram = false;
        try {
            picocli.CommandLine.ParseResult r = ClientOptions.parse(spec(), "simulate",
                    List.of(argv).subList(1, argv.length), false);
            if (r.isUsageHelpRequested()) {
                out.print(ClientOptions.usage(r.commandSpec()));
                return 0;
            }
            exclusive = r.matchedOptionValue("--exclusive", false);
            listJobs = r.matchedOptionValue("--jobs", false);
            autoVram = r.matchedOptionValue("--auto-vram", false);
            for (picocli.CommandLine.Model.OptionSpec o : r.matchedOptions()) {
                String a = o.longestName();
                if (o.arity().max() == 0 || a.equals("--help")) {
                    continue;
                }
                String v = o.getValue();
                switch (a) {
                    case "--gpus-spec" -> spec = v;
                    case "--margin" -> margin = mib(a, v, 0);
                    case "--idle-threshold" -> idle = mib(a, v, 1);
                    case "--spike-buffer" -> spike = spikeBuffer(a, v);
                    case "--age-step" -> queue = queue.withAgeStep(CliArgs.policyDuration(a, v));
                    case "--reserve-after" -> queue = queue.withReserveAfter(CliArgs.policyDuration(a, v));
                    case "--requirements" -> requirements = Optional.of(Path.of(v));
                    case "--learn-from" -> learnFrom = Optional.of(Path.of(v));
                    case "--save-journal" -> saveJournal = Optional.of(Path.of(v));
                    default -> defaultDuration = Optional.of(Units.parseDuration(v.strip()).orElseThrow(() ->
                            Units.isDurationForm(v.strip())
                            ? CliArgs.durationOutOfRange("--default-duration", v, Optional.empty(), "")
                            : new UsageException("--default-duration needs a duration like 90s, 15m, 2h or 1d, got '"
                            + v + "'")));
                }
            }
            if (r.hasMatchedPositional(0)) {
                file = Path.of(r.<String>matchedPositionalValue(0, ""));
            }
            if (file == null) {
                throw new UsageException("simulate needs a jobs file (see gpusched simulate --help)");
            }
            Cli.requireJobsFile(file);
            List<Long> gpus = GpuSpec.parse(spec);
            PlacementPolicy policy = new PlacementPolicy(margin, idle, spike, exclusive, Optional.empty());
            List<ReplayJob> jobs = ReplayWorkload.fromJobsFile(file, defaultDuration);
            if (saveJournal.isPresent() && java.nio.file.Files.exists(saveJournal.get())) {
                throw new UsageException("--save-journal " + saveJournal.get() + " exists; give a new path (a replay never"
                        + " writes over a journal)");
            }
            io.gpusched.jobs.Requirements rules = requirements.isPresent()
                    ? io.gpusched.jobs.RequirementsParser.read(requirements.get()) : io.gpusched.jobs.Requirements.NONE;
            io.gpusched.journal.PeakHistory history = learnFrom.map(j -> ReplayDeclarations.learnFrom(j,
                    w -> err.println("gpusched simulate: warning: --learn-from: " + w)))
                    .orElseGet(io.gpusched.journal.PeakHistory::new);
            ReplayDeclarations declarations = new ReplayDeclarations(rules, autoVram, history, spike);
            jobs = declarations.declare(jobs, io.gpusched.jobs.JobsFileParser.parse(file));
            ReplayResult result = new Replay(policy, queue, gpus).run(jobs);
            print(result, jobs.size(), gpus, policy, listJobs, out);
            declarations.summary().ifPresent(out::println);
            if (saveJournal.isPresent()) {
                declarations.save(saveJournal.get(), result);
                out.println("journal of this replay: " + saveJournal.get() + " (learn from it: --learn-from "
                        + saveJournal.get() + ")");
            }
            return 0;
        } catch (JobSpecException e) {
            Cli.printBadLines(e, err);
            return Cli.USAGE;
        } catch (UsageException | UncheckedIOException | IllegalArgumentException
                 | io.gpusched.jobs.RequirementsParser.RequirementsException e) {
            err.println("gpusched: " + e.getMessage());
            return Cli.USAGE;
        }
    }

    /** A size in MiB from {@code min} to the largest declaration, refused in a run's words (SchedulerOptions'). */
    private static long mib(String flag, String v, long min) throws UsageException {
        long mib = CliArgs.integer(flag, v);
        if (mib < min) {
            throw new UsageException(flag + " must be >= " + min + " MiB, got " + mib);
        }
        if (mib > Units.MAX_MIB) {
            throw new UsageException(flag + " must be at most " + Units.MAX_MIB + " MiB, got " + mib);
        }
        return mib;
    }

    private static double spikeBuffer(String flag, String v) throws UsageException {
        double f = CliArgs.decimal(flag, v);
        if (!(f >= 0 && f <= 10)) {
            throw new UsageException(flag + " must be in [0, 10], got " + v);
        }
        return f;
    }

    private static String secs(Duration d) {
        return String.format(Locale.ROOT, "%.2fs", d.toNanos() / 1e9);
    }

    private static void print(ReplayResult r, int total, List<Long> gpus, PlacementPolicy policy, boolean listJobs,
                              PrintStream out) {
        Set<Long> sizes = new HashSet<>(gpus);
        out.printf(Locale.ROOT, "simulated %d jobs on %d GPUs (%s MiB), margin %d MiB%s%n", total, gpus.size(),
                sizes.size() == 1 ? gpus.size() + " x " + gpus.get(0) : gpus.toString(), policy.marginMib(),
                policy.exclusive() ? ", exclusive" : "");
        List<ReplayResult.Run> timedOut = r.runs().stream().filter(ReplayResult.Run::timedOut).toList();
        out.println("makespan " + secs(r.makespan()) + " (" + r.runs().size() + " ran, " + r.infeasible().size()
                + " infeasible" + (timedOut.isEmpty() ? "" : ", " + timedOut.size() + " timed out")
                + "; zero scheduling overhead)");
        for (Map.Entry<Integer, List<ReplayResult.Run>> e : r.timeline().entrySet()) {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT, "gpu%d  busy %3.0f%%  %d jobs:", e.getKey(),
                    100 * r.busyFraction().get(e.getKey()), e.getValue().size()));
            for (ReplayResult.Run run : e.getValue()) {
                sb.append(String.format(Locale.ROOT, " %d[%.2f-%.2f%s]", run.job().no(), run.start().toNanos() / 1e9,
                        run.end().toNanos() / 1e9, run.timedOut() ? " timeout" : ""));
            }
            out.println(sb);
        }
        // The commands are a jobs file's, which may be another user's (a shared queue's file): escaped.
        r.infeasible().forEach((j, why) -> out.println("job " + j.no() + " infeasible: " + why + " — "
                + TerminalText.escape(j.command())));
        for (ReplayResult.Run run : timedOut) {
            ReplayJob j = run.job();
            out.println("job " + j.no() + " timed out after " + secs(j.runTime()) + " (it would have run "
                    + secs(j.duration()) + "), stopped at " + secs(run.end()) + " — " + TerminalText.escape(j.command()));
        }
        if (listJobs) {
            for (ReplayResult.Run run : r.runs()) {
                out.printf(Locale.ROOT, "job %d on gpu %s  %s -> %s%s  %s%n", run.job().no(), run.gpus(), secs(run.start()),
                        secs(run.end()), run.timedOut() ? " (timeout)" : "", TerminalText.escape(run.job().command()));
            }
        }
    }
}
