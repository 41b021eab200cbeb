package io.gpusched.cli;

import io.gpusched.protocol.Request;
import io.gpusched.service.StatsPrinter;
import io.gpusched.stats.Stats;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * What {@code gpusched serve} prints for a {@code gpusched stats} that cannot read the journal itself
 * ({@code stats} over the socket): the very output {@code gpusched stats} prints from a journal it reads,
 * text or JSON, from figures the daemon already narrowed to what the caller may see. The text's times are
 * in the zone the client sent (its own), else the daemon's. No plot: the daemon writes no file a user
 * names, and sends no chart.
 */
final class ServedStats implements StatsPrinter {
    @Override
    public String print(Stats stats, Path journal, List<String> warnings, Request.Stats request) {
        if (request.json()) {
            return StatsJson.render(stats, journal, Optional.empty(), warnings) + "\n";
        }
        ZoneId zone;
        try {
            zone = request.zone().map(ZoneId::of).orElseGet(ZoneId::systemDefault);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("\"zone\" is no time zone this daemon knows: "
                    + io.gpusched.event.TerminalText.excerpt(request.zone().orElse(""), 64), e);
        }
        return StatsText.render(stats, zone);
    }
}
