package io.gpusched.cli;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The promises a crash must not break, checked after the chaos test's last scheduler has finished:
 * from the journal, from what each job itself recorded in its {@link Ledger}, from every line the
 * schedulers printed, and from {@code /proc}. Each check returns its violations (empty when it holds),
 * so one run reports every broken promise at once.
 */
final class ChaosInvariants {
    static final String ONE_OUTCOME = "1 every job has exactly one terminal outcome, the expected one";
    static final String NO_OVERLAP = "2 no two runs of a job overlap";
    static final String NO_RERUN = "3 no job that ran to completion is started again";
    static final String JOURNAL_LOADS = "4 the journal loads cleanly and names only known jobs";
    static final String NO_SURVIVORS = "5 no job process survives the last scheduler";
    static final String ACKS_DURABLE = "6 every line a scheduler printed is backed by the journal";

    private static final Pattern STARTED = Pattern.compile("^job (\\d+) started on gpu ");
    private static final Pattern FINISHED = Pattern.compile("^job (\\d+) finished \\[(OK|EXIT (\\d+)|OOM \\(exit (\\d+)[^\\]]*)\\]");
    private static final Pattern OOM = Pattern.compile("^↻ job (\\d+) hit CUDA OOM");
    private static final Pattern REQUEUED = Pattern.compile("^job (\\d+) was interrupted mid-run");

    private final List<ChaosWorkload.Job> jobs;
    private final Map<String, String> keyOf = new HashMap<>();
    private final Path ledgerDir;
    private final Path journal;
    private final Path scratch;
    private final List<List<String>> outputs;

    /**
     * @param jobs the workload, in jobs-file order
     * @param jobsFile the jobs file (parsed again here for the keys)
     * @param outputs every scheduler's printed lines, in order
     * @param scratch a directory for a copy of the journal
     */
    ChaosInvariants(List<ChaosWorkload.Job> jobs, Path jobsFile, Path ledgerDir, Path journal, List<List<String>> outputs,
                    Path scratch) {
        this.jobs = jobs;
        this.ledgerDir = ledgerDir;
        this.journal = journal;
        this.outputs = outputs;
        this.scratch = scratch;
        List<JobSpec> specs = JobsFileParser.parse(jobsFile);
        if (specs.size() != jobs.size()) {
            throw new IllegalStateException("the jobs file has " + specs.size() + " jobs, the workload " + jobs.size());
        }
        for (int i = 0; i < jobs.size(); i++) {
            keyOf.put(jobs.get(i).name(), specs.get(i).key());
        }
    }

    /** @return each invariant's violations, in invariant order; all empty when every promise held */
    Map<String, List<String>> check() throws IOException {
        JournalLines.Parsed parsed = JournalLines.read(journal);
        Map<String, List<Ledger.Entry>> ledgers = new HashMap<>();
        for (ChaosWorkload.Job j : jobs) {
            ledgers.put(j.name(), Ledger.read(ledgerDir, j.name()));
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        out.put(ONE_OUTCOME, oneOutcome(parsed, ledgers, fold()));
        out.put(NO_OVERLAP, noOverlap(ledgers));
        out.put(NO_RERUN, noRerun(ledgers));
        out.put(JOURNAL_LOADS, journalLoads(parsed));
        out.put(NO_SURVIVORS, noSurvivors(parsed, ledgers));
        out.put(ACKS_DURABLE, unjournaledAcks(outputs, parsed));
        return out;
    }

    /** @return the scheduler's own fold of a copy of the journal; empty if it does not open (another check says so) */
    private Optional<JournalState> fold() throws IOException {
        Path copy = scratch.resolve("journal-fold.jsonl");
        Files.copy(journal, copy, StandardCopyOption.REPLACE_EXISTING);
        try (Journal j = Journal.open(copy, false)) {
            return Optional.of(j.state());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private List<String> oneOutcome(JournalLines.Parsed parsed, Map<String, List<Ledger.Entry>> ledgers,
                                    Optional<JournalState> fold) {
        List<String> v = new ArrayList<>();
        for (ChaosWorkload.Job j : jobs) {
            if (fold.isPresent()) {
                // what a restart would believe: the last word of the journal on this job
                JobRecord r = fold.get().record(keyOf.get(j.name()));
                if (!r.status().equals(j.expectedStatus()) || r.returncode().orElse(-1) != j.expectedCode()) {
                    v.add(j.name() + " (" + j.kind() + "): the folded journal says " + r.status() + " with code "
                            + r.returncode() + ", expected " + j.expectedStatus() + " with code " + j.expectedCode());
                }
            }
            List<JournalLines.Line> done = parsed.of(keyOf.get(j.name()), "done");
            if (done.size() != 1) {
                v.add(j.name() + " (" + j.kind() + "): " + done.size() + " terminal events " + done);
                continue;
            }
            JournalLines.Line d = done.get(0);
            String status = d.field("status").orElse("?");
            int rc = Integer.parseInt(d.field("returncode").orElse("-1"));
            if (!status.equals(j.expectedStatus()) || rc != j.expectedCode()) {
                v.add(j.name() + " (" + j.kind() + "): journaled " + status + " with code " + rc + ", expected "
                        + j.expectedStatus() + " with code " + j.expectedCode());
            }
            List<Ledger.Entry> ends = ledgers.get(j.name()).stream().filter(e -> e.kind().equals("end")).toList();
            if (ends.isEmpty() || ends.get(ends.size() - 1).rc().getAsInt() != rc) {
                v.add(j.name() + ": journaled code " + rc + " but its last run " + (ends.isEmpty() ? "never completed"
                        : "exited " + ends.get(ends.size() - 1).rc().getAsInt()));
            }
        }
        return v;
    }

    private List<String> noOverlap(Map<String, List<Ledger.Entry>> ledgers) {
        List<String> v = new ArrayList<>();
        for (ChaosWorkload.Job j : jobs) {
            List<Ledger.Entry> es = ledgers.get(j.name());
            for (int i = 0; i < es.size(); i++) {
                Ledger.Entry e = es.get(i);
                if (e.kind().equals("garbled")) {
                    v.add(j.name() + ": garbled ledger line (two writers at once?): " + e.text());
                } else if (e.kind().equals("overlap")) {
                    v.add(j.name() + ": run pid " + e.pid() + " started while an earlier run still held the job's lock");
                } else if (e.kind().equals("start")) {
                    // an earlier run that had not yet ended, and ended later: both were alive at this start
                    for (int k = 0; k < i; k++) {
                        Ledger.Entry a = es.get(k);
                        if (a.kind().equals("start") && a.pid() != e.pid() && !endedBetween(es, a.pid(), k, i)
                                && endedBetween(es, a.pid(), i, es.size())) {
                            v.add(j.name() + ": run pid " + e.pid() + " started at " + e.uptime() + " while run pid "
                                    + a.pid() + " (started " + a.uptime() + ") had not ended");
                        }
                    }
                }
            }
        }
        return v;
    }

    private static boolean endedBetween(List<Ledger.Entry> es, long pid, int from, int to) {
        for (int i = from; i < to; i++) {
            if (es.get(i).kind().equals("end") && es.get(i).pid() == pid) {
                return true;
            }
        }
        return false;
    }

    private List<String> noRerun(Map<String, List<Ledger.Entry>> ledgers) {
        List<String> v = new ArrayList<>();
        for (ChaosWorkload.Job j : jobs) {
            long completed = 0;
            OptionalInt lastRc = OptionalInt.empty();
            for (Ledger.Entry e : ledgers.get(j.name())) {
                if (e.kind().equals("end")) {
                    completed++;
                    lastRc = e.rc();
                } else if (e.kind().equals("start") && completed > 0 && !j.mayRunAgainAfter(lastRc, completed)) {
                    v.add(j.name() + " (" + j.kind() + "): started again (pid " + e.pid() + " at " + e.uptime()
                            + ") after " + completed + " completed run" + (completed == 1 ? "" : "s") + ", the last exiting "
                            + lastRc.getAsInt());
                }
            }
        }
        return v;
    }

    /**
     * Every line is a whole event, but for an event a kill cut short: at most one per scheduler killed
     * (every one but the last, which finishes). Linux ends a write(2) of several pages early when SIGKILL
     * is pending between two of them, so a journal group over a page can be cut mid-line by the kill; the
     * loader skips the fragment with a warning, and the next scheduler starts on a fresh line
     * ({@code Journal.load}): what was cut was never forced, so never acknowledged. Anything else that does
     * not parse (garbage, a line cut with no kill, two) breaks the promise.
     */
    private List<String> journalLoads(JournalLines.Parsed parsed) throws IOException {
        int killed = Math.max(0, outputs.size() - 1);
        boolean forgiven = !parsed.cut().isEmpty() && parsed.cut().size() == parsed.errors().size()
                && parsed.cut().size() <= killed;
        List<String> v = new ArrayList<>(forgiven ? List.of() : parsed.errors());
        Path copy = scratch.resolve("journal-copy.jsonl");
        Files.copy(journal, copy, StandardCopyOption.REPLACE_EXISTING);
        try (Journal j = Journal.open(copy, false)) {
            String skipped = "skipped " + parsed.cut().size() + " unreadable line" + (parsed.cut().size() == 1 ? " " : "s ");
            j.loadWarnings().stream().filter(w -> !(forgiven && w.contains(skipped))).forEach(v::add);
            Set<String> known = new HashSet<>(keyOf.values());
            for (String key : j.state().records().keySet()) {
                if (!known.contains(key)) {
                    v.add("the folded journal has a job with unknown key " + key);
                }
            }
        } catch (RuntimeException e) {
            v.add("the journal does not open: " + e);
        }
        Set<String> known = new HashSet<>(keyOf.values());
        for (JournalLines.Line l : parsed.lines()) {
            if (!known.contains(l.key())) {
                v.add("line " + l.lineNo() + ": " + l.event() + " event for unknown key " + l.key());
            }
        }
        return v;
    }

    private List<String> noSurvivors(JournalLines.Parsed parsed, Map<String, List<Ledger.Entry>> ledgers) {
        Set<Long> sessions = new HashSet<>();
        for (JournalLines.Line l : parsed.lines()) {
            if (l.event().equals("started")) {
                l.field("pgid").ifPresent(p -> sessions.add(Long.parseLong(p)));
            }
        }
        // the ledger also names runs the journal may not (a launch the scheduler died before recording)
        ledgers.values().forEach(es -> es.stream().filter(e -> e.kind().equals("start")).forEach(e -> sessions.add(e.pid())));
        return ProcSessions.liveMembers(sessions);
    }

    /**
     * @param outputs schedulers' printed lines
     * @param parsed the journal
     * @return one message per printed acknowledgement (job started, finished, requeued) the journal lacks
     */
    static List<String> unjournaledAcks(List<List<String>> outputs, JournalLines.Parsed parsed) {
        List<String> v = new ArrayList<>();
        Map<Integer, String> keys = parsed.keysByNo();
        Map<String, Integer> printed = new LinkedHashMap<>();
        for (List<String> run : outputs) {
            for (String line : run) {
                ack(line).ifPresent(a -> printed.merge(a, 1, Integer::sum));
            }
        }
        for (Map.Entry<String, Integer> p : printed.entrySet()) {
            String[] f = p.getKey().split(" ", 3); // no, event, detail
            String key = keys.get(Integer.parseInt(f[0]));
            if (key == null) {
                v.add("printed job " + f[0] + " has no seen event in the journal");
                continue;
            }
            long journaled = parsed.of(key, f[1]).stream().filter(l -> matchesDetail(l, f[2])).count();
            if (journaled < p.getValue()) {
                v.add("job " + f[0] + ": " + p.getValue() + " printed '" + f[1] + " " + f[2] + "' lines but "
                        + journaled + " such events in the journal");
            }
        }
        return v;
    }

    /** @return "NO EVENT DETAIL" for a line that acknowledges a journal event */
    static Optional<String> ack(String line) {
        Matcher m;
        if ((m = STARTED.matcher(line)).find()) {
            return Optional.of(m.group(1) + " started -");
        } else if ((m = FINISHED.matcher(line)).find()) {
            String detail = m.group(2).equals("OK") ? "ok/0" : m.group(3) != null ? "failed/" + m.group(3)
                    : "failed_oom/" + m.group(4);
            return Optional.of(m.group(1) + " done " + detail);
        } else if ((m = OOM.matcher(line)).find()) {
            return Optional.of(m.group(1) + " oom -");
        } else if ((m = REQUEUED.matcher(line)).find()) {
            return Optional.of(m.group(1) + " interrupted -");
        }
        return Optional.empty();
    }

    private static boolean matchesDetail(JournalLines.Line l, String detail) {
        if (detail.equals("-")) {
            return true;
        }
        String[] sr = detail.split("/");
        return l.field("status").orElse("").equals(sr[0]) && l.field("returncode").orElse("").equals(sr[1]);
    }
}
