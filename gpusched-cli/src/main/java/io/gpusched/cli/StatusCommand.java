package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.gpusched.event.TerminalText;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * {@code gpusched status [--log-dir DIR] [--json]}: the status board of a running or finished scheduler,
 * read from its log directory ({@code status.txt} and {@code status.json}, written after every round).
 */
final class StatusCommand {
    /** Its options, declared once: the parser, {@code --help}, the completions and the man page read them. */
    static picocli.CommandLine.Model.CommandSpec spec() {
        picocli.CommandLine.Model.CommandSpec s = ClientOptions.base("status", "Prints the status board of the scheduler"
                + " that uses DIR (running or finished), and whether it is still running. Exit 0 board printed; 1 no"
                + " board in DIR (no scheduler has run there); 2 bad command line.");
        s.addOption(picocli.CommandLine.Model.OptionSpec.builder("--log-dir").arity("1").type(String.class).paramLabel("DIR")
                .defaultValue("gpusched_logs").description("the scheduler's log directory [gpusched_logs]").build());
        s.addOption(ClientOptions.flag(new String[] {"--json"}, "print the board as one JSON object (fields as in"
                + " --events' status_updated, under \"status\", plus \"state\", \"scheduler_pid\", \"finished\","
                + " \"log_dir\")"));
        return s;
    }

    /** Held apart so that {@link #spec()} (read by every --help, through DistDocs) loads no Jackson. */
    private static final class Json {
        static final JsonFactory FACTORY = new JsonFactory();
    }

    private final PrintStream out;
    private final PrintStream err;

    StatusCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String... argv) {
        picocli.CommandLine.ParseResult r;
        try {
            r = ClientOptions.parse(spec(), "status", java.util.List.of(argv), false);
        } catch (UsageException e) {
            err.println("gpusched status: " + e.getMessage());
            return Cli.USAGE;
        }
        if (r.isUsageHelpRequested()) {
            out.print(ClientOptions.usage(r.commandSpec()));
            return 0;
        }
        Path logDir = Path.of(r.<String>matchedOptionValue("--log-dir", "gpusched_logs"));
        boolean json = r.matchedOptionValue("--json", false);
        String text;
        String statusJson;
        try {
            text = Files.readString(logDir.resolve("status.txt"), StandardCharsets.UTF_8);
            statusJson = readOrNull(logDir.resolve("status.json"));
        } catch (NoSuchFileException e) {
            // Without --log-dir it is most often a daemon's user (scheduler.py's status, say) who asks.
            err.println("gpusched status: no status board in " + logDir + " (no scheduler has run there; try --log-dir)"
                    + (r.hasMatchedOption("--log-dir") ? "" : "; a daemon's queue and GPUs (gpusched serve):"
                    + " gpusched queue, gpusched info"));
            return 1;
        } catch (IOException e) {
            err.println("gpusched status: cannot read " + logDir + ": " + e.getMessage());
            return 1;
        }
        Header h = statusJson == null ? new Header(OptionalLong.empty(), false, false) : header(statusJson);
        String state = state(h);
        if (json) {
            out.println(json(logDir, state, h, statusJson));
        } else {
            // The board holds every user's commands. Its writer escapes them (TerminalText); a board an
            // older scheduler wrote, or one someone edited, is escaped here too, a line at a time so its
            // own line breaks stay.
            PrintStream shown = LocaleText.of(out);
            shown.print(java.util.Arrays.stream(text.split("\n", -1)).map(TerminalText::escape)
                    .collect(java.util.stream.Collectors.joining("\n")));
            shown.println(switch (state) {
                case "running" -> "scheduler running (pid " + h.pid().getAsLong() + ")";
                case "finished" -> "scheduler finished";
                case "stopped" -> h.interrupted()
                        ? "scheduler stopped (interrupted); run the same command again to resume"
                        : "scheduler not running (pid " + h.pid().getAsLong() + " is gone); this board is its last";
                default -> "scheduler state unknown";
            });
        }
        return 0;
    }

    private static String readOrNull(Path p) throws IOException {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** What status.json says of its scheduler: its pid, whether its run ended, and whether by a stop. */
    record Header(OptionalLong pid, boolean finished, boolean interrupted) {
    }

    static Header header(String statusJson) {
        OptionalLong pid = OptionalLong.empty();
        boolean finished = false;
        boolean interrupted = false;
        try (JsonParser p = Json.FACTORY.createParser(statusJson)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new Header(pid, false, false);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (name.equals("scheduler_pid") && t == JsonToken.VALUE_NUMBER_INT) {
                    pid = OptionalLong.of(p.getLongValue());
                } else if (name.equals("finished")) {
                    finished = t == JsonToken.VALUE_TRUE;
                } else if (name.equals("interrupted")) {
                    interrupted = t == JsonToken.VALUE_TRUE;
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            // a torn or foreign file: state unknown
        }
        return new Header(pid, finished, interrupted);
    }

    /**
     * {@code finished} when its queue drained; {@code stopped} when it was interrupted (Ctrl-C, SIGTERM)
     * or died without a word; {@code running} while its process lives.
     */
    static String state(Header h) {
        if (h.finished()) {
            return h.interrupted() ? "stopped" : "finished";
        }
        if (h.pid().isEmpty()) {
            return "unknown";
        }
        boolean alive = ProcessHandle.of(h.pid().getAsLong()).map(ProcessHandle::isAlive).orElse(false);
        return alive ? "running" : "stopped";
    }

    private static String json(Path logDir, String state, Header h, String statusJson) {
        StringWriter s = new StringWriter();
        try (JsonGenerator g = Json.FACTORY.createGenerator(s)) {
            g.writeStartObject();
            g.writeStringField("state", state);
            g.writeStringField("log_dir", logDir.toString());
            g.writeFieldName("scheduler_pid");
            if (h.pid().isPresent()) {
                g.writeNumber(h.pid().getAsLong());
            } else {
                g.writeNull();
            }
            g.writeBooleanField("finished", h.finished());
            g.writeBooleanField("interrupted", h.interrupted());
            g.writeFieldName("status");
            String inner = statusJson == null ? null : statusField(statusJson);
            if (inner == null) {
                g.writeNull();
            } else {
                g.writeRawValue(inner);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return s.toString();
    }

    /** @return the raw text of the top-level "status" value of status.json */
    private static String statusField(String statusJson) {
        try (JsonParser p = Json.FACTORY.createParser(statusJson)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("status")) {
                    int start = (int) p.currentTokenLocation().getCharOffset();
                    p.skipChildren();
                    int end = (int) p.currentLocation().getCharOffset();
                    return statusJson.substring(start, end);
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
