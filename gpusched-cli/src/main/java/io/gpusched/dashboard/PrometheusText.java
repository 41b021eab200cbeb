package io.gpusched.dashboard;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: the official Java client is
 * several jars for what is a few lines of text here. Each family gets its HELP and TYPE lines once,
 * before its samples; label values and help texts are escaped as the format says.
 */
final class PrometheusText {
    /** The content type of what {@link #toString()} gives. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(4096);

    /** One labelled value of a counter or gauge family. */
    record Sample(Map<String, String> labels, double value) {
        static Sample of(double value) {
            return new Sample(Map.of(), value);
        }
    }

    PrometheusText counter(String name, String help, List<Sample> samples) {
        return family(name, help, "counter", samples);
    }

    PrometheusText gauge(String name, String help, List<Sample> samples) {
        return family(name, help, "gauge", samples);
    }

    PrometheusText histogram(String name, String help, Histogram.Snapshot h) {
        header(name, help, "histogram");
        for (int i = 0; i < h.cumulative().length; i++) {
            String le = i < h.bounds().length ? number(h.bounds()[i]) : "+Inf";
            out.append(name).append("_bucket{le=\"").append(le).append("\"} ").append(h.cumulative()[i]).append('\n');
        }
        out.append(name).append("_sum ").append(number(h.sum())).append('\n');
        out.append(name).append("_count ").append(h.count()).append('\n');
        return this;
    }

    private PrometheusText family(String name, String help, String type, List<Sample> samples) {
        header(name, help, type);
        for (Sample s : samples) {
            out.append(name);
            if (!s.labels().isEmpty()) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, String> l : new java.util.TreeMap<>(s.labels()).entrySet()) {
                    out.append(first ? "" : ",").append(l.getKey()).append("=\"").append(escapeLabel(l.getValue())).append('"');
                    first = false;
                }
                out.append('}');
            }
            out.append(' ').append(number(s.value())).append('\n');
        }
        return this;
    }

    private void header(String name, String help, String type) {
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("not a metric name: " + name);
        }
        out.append("# HELP ").append(name).append(' ').append(escapeHelp(help)).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** A label value: backslash, double quote and line feed escaped. */
    static String escapeLabel(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** A help text: backslash and line feed escaped. */
    static String escapeHelp(String v) {
        return v.replace("\\", "\\\\").replace("\n", "\\n");
    }

    /** A sample value: whole numbers without a fraction, {@code +Inf}, {@code -Inf}, {@code NaN}, else plain decimals. */
    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
