package io.gpusched.dashboard;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Where the dashboard listens: {@code --dashboard PORT} (on 127.0.0.1) or {@code --dashboard HOST:PORT}
 * ({@code [v6]:PORT} for an IPv6 literal). Port 0 takes a free one.
 *
 * @param host the host as given, {@code 127.0.0.1} when only a port was
 * @param port the TCP port, 0 to 65535
 * @param address what {@code host} resolved to
 */
public record DashboardAddress(String host, int port, InetAddress address) {
    /**
     * Reads the option's value.
     *
     * @param text e.g. {@code 8765}, {@code 127.0.0.1:8765}, {@code [::1]:0}
     * @return the address
     * @throws IllegalArgumentException with a one-line message, when it is not one
     */
    public static DashboardAddress parse(String text) {
        String t = text.strip();
        String host = "127.0.0.1";
        String port = t;
        int colon = t.lastIndexOf(':');
        if (colon >= 0) {
            host = t.substring(0, colon);
            port = t.substring(colon + 1);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            } else if (host.contains(":")) {
                throw new IllegalArgumentException("--dashboard: write an IPv6 address in brackets, e.g. [::1]:8765, got '"
                        + text + "'");
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("--dashboard needs a host before the ':', e.g. 127.0.0.1:8765, got '"
                        + text + "'");
            }
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("--dashboard needs PORT or HOST:PORT with a port 0 to 65535 (0: any free one), "
                    + "e.g. 8765 or 127.0.0.1:8765, got '" + text + "'");
        }
        try {
            return new DashboardAddress(host, p, InetAddress.getByName(host));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--dashboard: cannot resolve host '" + host + "'; give an address such as "
                    + "127.0.0.1:" + p);
        }
    }

    /** @return whether only this machine can reach it */
    public boolean loopback() {
        return address.isLoopbackAddress();
    }

    /** @return the socket address to bind */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(address, port);
    }

    /**
     * Refuses an address other machines could reach unless the user said they mean it.
     *
     * @param allowPublic whether {@code --dashboard-public} was given
     * @throws IllegalArgumentException with a one-line message naming the risk and both ways out
     */
    public void requireAllowed(boolean allowPublic) {
        if (!loopback() && !allowPublic) {
            throw new IllegalArgumentException("--dashboard " + host + ":" + port + " is not a loopback address: the "
                    + "dashboard speaks plain HTTP, so its users' tokens and every job's command, user and paths would "
                    + "cross the network unencrypted; add --dashboard-public if that is what you want, or use 127.0.0.1:"
                    + port);
        }
    }

    /**
     * @param url where it listens
     * @return the one line a daemon prints when it listens beyond loopback
     */
    public static String riskWarning(String url) {
        return "gpusched: warning: the dashboard at " + url + " is reachable from other machines over plain HTTP: "
                + "anyone who sees a user's token on the network reads what that user's gpusched queue shows";
    }
}
