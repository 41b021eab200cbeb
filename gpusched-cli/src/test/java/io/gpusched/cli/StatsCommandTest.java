package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code gpusched stats}' command line: one-line errors that name the file and the fix, warnings about
 * damaged lines, nothing written beside the journal, and the SVG chart's structure.
 */
class StatsCommandTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void oneLine(Run r, String expected) {
        assertEquals("", r.out);
        assertEquals(expected + "\n", r.err);
    }

    @Test
    void aMissingLogDirectoryIsOneLineNamingItAndTheFix() {
        Path logs = dir.resolve("nope");
        Run r = cli("stats", "--log-dir", logs.toString());
        assertEquals(1, r.code);
        oneLine(r, "gpusched stats: no log directory " + logs + "; give the scheduler's with --log-dir DIR");
        assertFalse(Files.exists(logs), "stats creates nothing");
    }

    @Test
    void aLogDirectoryWithoutAJournalIsOneLine() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Run r = cli("stats", "--log-dir", logs.toString());
        assertEquals(1, r.code);
        oneLine(r, "gpusched stats: no journal in " + logs + " (" + logs.resolve("journal.jsonl") + " is missing: no"
                + " scheduler has run there); give the scheduler's log directory with --log-dir DIR");
        assertEquals(List.of(), Files.list(logs).toList());
    }

    @Test
    void anUnreadableJournalIsOneLineNamingItAndWhoMayReadIt() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Path journal = Files.writeString(logs.resolve("journal.jsonl"), "");
        Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("---------"));
        assumeFalse(Files.isReadable(journal), "root reads everything");
        // Not readable, so the daemon is asked instead (docs/stats.md); none answers here.
        Path socket = io.gpusched.service.GpuschedClient.defaultSocket();
        assumeFalse(Files.exists(socket), "a daemon may answer at " + socket);
        Run r = cli("stats", "--log-dir", logs.toString());
        assertEquals(1, r.code);
        oneLine(r, "gpusched stats: cannot read " + journal + ": permission denied, and no gpusched daemon answers at "
                + socket + " to read it for you; run as a user who may read it (its owner, or root), or name the"
                + " daemon's socket with --socket PATH");
    }

    @Test
    void aJournalThatCannotBeReadForAnotherReasonIsOneLineNamingIt() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Path journal = Files.createDirectory(logs.resolve("journal.jsonl"));
        Run r = cli("stats", "--log-dir", logs.toString());
        assertEquals(1, r.code);
        oneLine(r, "gpusched stats: cannot read " + journal + ": Is a directory; check the file, or give another log"
                + " directory with --log-dir DIR");
    }

    @Test
    void aBadSinceIsAUsageErrorSayingWhatADurationIs() throws Exception {
        Files.createDirectory(dir.resolve("logs"));
        Run r = cli("stats", "--log-dir", dir.resolve("logs").toString(), "--since", "7x");
        assertEquals(2, r.code);
        oneLine(r, "gpusched stats: --since 7x is not a duration; give a number with s, m, h or d (up to 3650d), e.g."
                + " --since 7d");
        assertEquals(2, cli("stats", "--since").code);
        assertEquals(2, cli("stats", "--since=0").code);
        oneLine(cli("stats", "--tolerance", "1.5"), "gpusched stats: --tolerance 1.5 is not a share in [0, 1); e.g. --tolerance 0.1");
        oneLine(cli("stats", "--bogus"), "gpusched stats: unknown option --bogus for gpusched stats (see gpusched stats --help)");
    }

    @Test
    void aPlotThatCannotBeWrittenIsOneLineNamingIt() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Files.writeString(logs.resolve("journal.jsonl"), "");
        Path plot = dir.resolve("missing/plot.svg");
        Run r = cli("stats", "--log-dir", logs.toString(), "--plot", plot.toString());
        assertEquals(1, r.code);
        oneLine(r, "gpusched stats: cannot write plot " + plot + ": no such directory; give --plot a path in a writable"
                + " directory");
    }

    @Test
    void damagedLinesAreSkippedWithAWarning_onStderrAndInTheJson_andNothingIsWrittenBesideTheJournal() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        String journal = "{\"key\":\"a#0\",\"event\":\"seen\",\"no\":1,\"command\":\"x\",\"at_ms\":0}\n"
                + "\u0000 garbage\n"
                + "{\"key\":\"a#0\",\"event\":\"done\",\"status\":\"failed\",\"returncode\":2,\"peak_mib\":{},\"avg_util\":null,\"at_ms\":1000}\n";
        Files.writeString(logs.resolve("journal.jsonl"), journal);
        Run r = cli("stats", "--log-dir", logs.toString(), "--json");
        assertEquals(0, r.code, r.err);
        String warning = "journal " + logs.resolve("journal.jsonl") + ": skipped 1 unreadable line (first at line 2), kept"
                + " every other event";
        assertEquals("gpusched stats: warning: " + warning + "\n", r.err);
        assertTrue(r.out.contains("\"by_status\":{\"ok\":0,\"failed\":1,"), r.out);
        assertTrue(r.out.endsWith("\"warnings\":[\"" + warning + "\"]}\n"), r.out);
        assertEquals(List.of("journal.jsonl"), Files.list(logs).map(p -> p.getFileName().toString()).toList());
        assertEquals(journal, Files.readString(logs.resolve("journal.jsonl")));
    }

    @Test
    void helpIsPrinted() {
        Run r = cli("stats", "--help");
        assertEquals(0, r.code);
        assertEquals(ClientOptions.usage(StatsCommand.spec()), r.out);
        assertTrue(r.out.startsWith("Usage: gpusched stats ") && r.out.contains("--since=DUR")
                && r.out.contains("Example:\n  gpusched stats --since 7d"), r.out);
        assertTrue(cli("--help").out.contains("gpusched stats [options]"));
    }

    /**
     * The hand-computed journal's chart: well-formed, one lane per GPU, one bar per run and GPU (job 3 runs
     * on two GPUs, job 2 twice), each as high as its peak or, for the run before the OOM retry, its
     * declaration; and an owner named with markup stays well-formed.
     */
    @Test
    void theChartHasALanePerGpuAndABarPerRunOnEachOfItsGpus() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        String journal = StatsHandComputedTest.journal().replace("\"owner\":\"bob\"", "\"owner\":\"<b&o\\\"b'\\u0001>\"");
        Files.writeString(logs.resolve("journal.jsonl"), journal);
        Path plot = dir.resolve("plot.svg");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new StatsCommand(new PrintStream(out, true, StandardCharsets.UTF_8), System.err,
                InstantSource.fixed(Instant.ofEpochMilli(StatsHandComputedTest.T0 + 240 * 60_000)), ZoneId.of("UTC"),
                p -> "ada").run("--log-dir", logs.toString(), "--plot", plot.toString());
        assertEquals(0, code);
        assertTrue(out.toString(StandardCharsets.UTF_8).endsWith("plot written to " + plot + ": 2 GPU lanes, 7 bars\n"));
        Document svg = parse(Files.readAllBytes(plot));
        assertEquals("svg", svg.getDocumentElement().getTagName());
        List<Element> lanes = elements(svg.getElementsByTagName("g")).stream()
                .filter(g -> g.getAttribute("class").equals("lane")).toList();
        assertEquals(List.of("0", "1"), lanes.stream().map(g -> g.getAttribute("data-gpu")).toList());
        assertEquals(List.of("1", "3", "7"), bars(lanes.get(0)).stream().map(b -> b.getAttribute("data-job")).toList());
        assertEquals(List.of("2", "2", "3", "6"), bars(lanes.get(1)).stream().map(b -> b.getAttribute("data-job")).toList());
        List<String> titles = bars(lanes.get(1)).stream().map(b -> b.getTextContent()).toList();
        assertEquals("job 2 (alice) on gpu1: 2026-03-02 09:10:00 to 2026-03-02 09:20:00, declared 10000 MiB (no peak"
                + " measured), oom", titles.get(0));
        assertEquals("job 2 (alice) on gpu1: 2026-03-02 09:20:00 to 2026-03-02 10:20:00, peak 11000 MiB, ok", titles.get(1));
        assertEquals("<b&o\"b'\uFFFD>", bars(lanes.get(1)).get(2).getAttribute("data-owner"));
        Element legend = elements(svg.getElementsByTagName("g")).stream().filter(g -> g.getAttribute("class").equals("legend"))
                .findFirst().orElseThrow();
        assertEquals(List.of("<b&o\"b'\uFFFD>", "ada", "alice"), elements(legend.getElementsByTagName("text")).stream()
                .map(Element::getTextContent).toList(), "owners in name order");
    }

    static Document parse(byte[] svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg));
    }

    static List<Element> elements(NodeList nodes) {
        return java.util.stream.IntStream.range(0, nodes.getLength()).mapToObj(i -> (Element) nodes.item(i)).toList();
    }

    static List<Element> bars(Element lane) {
        return elements(lane.getElementsByTagName("rect")).stream().filter(r -> r.getAttribute("class").equals("bar")).toList();
    }
}
