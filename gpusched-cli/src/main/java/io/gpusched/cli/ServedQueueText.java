package io.gpusched.cli;

import io.gpusched.protocol.Request;
import io.gpusched.service.QueuePrinter;
import java.util.Optional;

/**
 * What {@code gpusched serve} prints for a {@code gpusched queue} that asks for text: the very text the
 * client would print itself from the rows ({@link QueueTable#printQueue}), with the client's terminal,
 * locale and options as it sent them (issue #27: the client's cold JIT decoding and formatting every row
 * cost it most of its wall time), a line at a time ({@link TextLines}) so a queue of any length is
 * written without its text held. The format is parsed with the client's own parser, so a format the
 * client would refuse is refused here with the same words.
 */
final class ServedQueueText implements QueuePrinter {
    @Override
    public QueuePrinter.Text print(QueuePrinter.Rows queue, Request.Text text) {
        Optional<QueueFormat> format;
        try {
            format = text.format().map(QueueFormat::parse);
        } catch (UsageException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        QueueView.Shown shown = new QueueView(text.user(), text.all()).apply(queue);
        return QueueTable.text(shown, format, text.table(), text.width(), text.ascii());
    }
}
