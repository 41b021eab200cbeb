package io.gpusched.dashboard;

/**
 * The JDK HTTP server's own limits that the dashboard relies on: how many connections it holds, and how
 * long a connection may take to send a request's line and headers, or sit idle. The JDK offers these
 * only as system properties, read once by {@code sun.net.httpserver.ServerConfig} when the JVM's first
 * {@code HttpServer} is made; {@link Dashboard#start} sets them just before it makes its server, and
 * nothing else in gpusched makes one. Being set in code, they hold whichever way the JVM was started
 * ({@code bin/gpusched}, the packaged launcher, {@code java -cp ... Main}). They are set whatever the
 * command line gave: the dashboard's safety depends on them, and they are no gpusched option (only
 * {@link #REQUEST_SECONDS_PROPERTY}, for the tests, can shorten two of them).
 *
 * <p>Without them (JDK 17's defaults) a connection may send half a header forever, holding a thread,
 * and nothing caps the connections: any local user, without a token, could freeze the dashboard and
 * {@code /metrics} or run a root daemon out of file descriptors.
 */
final class ServerLimits {
    /**
     * Connections the dashboard holds at once, in every state (sending a request, answered, idle, or an
     * {@code /events} stream); one more is closed as soon as it is accepted. Each is a file descriptor of
     * the daemon, so this is what a user opening connections in a loop can take from it. Room for
     * {@link EventStream#MAX_STREAMS} pages and as many browsers' other connections.
     */
    static final int MAX_CONNECTIONS = 128;
    /**
     * Seconds a connection has, from its request's first byte, to send the request line and headers; then
     * it is closed. A browser sends them in one packet; this only ends a client that trickles them.
     */
    static final int MAX_REQUEST_SECONDS = 10;
    /**
     * Seconds a connection may sit idle between requests, or before its first (the JDK takes the lesser
     * of this and {@link #MAX_REQUEST_SECONDS} for a fresh one), before it is closed. A browser opens a new
     * one when it needs to.
     */
    static final int IDLE_SECONDS = 10;
    /** How often the JDK looks for idle connections to close, in ms (its default of 10 s would double the idle time). */
    static final int IDLE_CHECK_MS = 1000;
    /**
     * A JVM system property ({@code -D}) that shortens {@link #MAX_REQUEST_SECONDS} and {@link #IDLE_SECONDS}
     * to its value in seconds, so that the tests that prove they are enforced (DashboardLimitsTest) need not
     * wait the full 10 s each time. It can only shorten them ({@link #shortened}): no gpusched option, and no
     * way to loosen what the dashboard's safety depends on.
     */
    static final String REQUEST_SECONDS_PROPERTY = "gpusched.dashboard.requestSeconds";

    private ServerLimits() {
    }

    /**
     * @param property a JVM system property meant to shorten {@code limit} (for the tests)
     * @return its value where it is a whole number from 1 to {@code limit}; {@code limit} otherwise (unset,
     *     not a number, or longer: a limit is never lengthened this way)
     */
    static int shortened(String property, int limit) {
        Integer value = Integer.getInteger(property);
        return value != null && value >= 1 && value <= limit ? value : limit;
    }

    /** Sets the limits; before the JVM's first {@code HttpServer}, as the JDK reads them only then. */
    static void apply() {
        System.setProperty("jdk.httpserver.maxConnections", String.valueOf(MAX_CONNECTIONS));
        System.setProperty("sun.net.httpserver.maxReqTime", String.valueOf(shortened(REQUEST_SECONDS_PROPERTY, MAX_REQUEST_SECONDS)));
        System.setProperty("sun.net.httpserver.idleInterval", String.valueOf(shortened(REQUEST_SECONDS_PROPERTY, IDLE_SECONDS)));
        System.setProperty("sun.net.httpserver.clockTick", String.valueOf(IDLE_CHECK_MS));
        // Deliberately no sun.net.httpserver.maxRspTime: it bounds a whole response, and an /events stream's
        // lasts as long as its page. EventStream bounds what a page that does not read can hold instead.
    }
}
