package io.gpusched.dashboard;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code Host} headers the dashboard answers: its own address with its port, as the URL it hands
 * out names it, or {@code localhost}, {@code 127.0.0.1}, {@code [::1]} with the port. Anything else is
 * a name that only points here by someone's DNS (a web page rebinding its own name to 127.0.0.1 to read
 * the dashboard from a browser on this machine), and is refused. A dashboard on a wildcard address
 * ({@code 0.0.0.0}, with {@code --dashboard-public}) also answers this machine's host name and the
 * addresses of its interfaces.
 *
 * @param hosts the allowed values, lower case, each with {@code :port} (and without it on port 80)
 */
record AllowedHosts(Set<String> hosts) {
    /** Copies the set. */
    AllowedHosts {
        hosts = Set.copyOf(hosts);
    }

    /**
     * @param asked the address as {@code --dashboard} gave it
     * @param bound where the server listens, with the port it took
     * @return the hosts a request may name
     */
    static AllowedHosts of(DashboardAddress asked, InetSocketAddress bound) {
        Set<String> names = new TreeSet<>(Set.of("localhost", "127.0.0.1", "[::1]"));
        names.add(literal(bound.getAddress()));
        names.add(asked.host().contains(":") ? "[" + asked.host() + "]" : asked.host());
        if (bound.getAddress().isAnyLocalAddress()) {
            try {
                for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    Collections.list(i.getInetAddresses()).forEach(a -> names.add(literal(a)));
                }
            } catch (SocketException e) {
                // Without the interfaces' list, only the names above are answered.
            }
            try {
                names.add(InetAddress.getLocalHost().getHostName());
            } catch (UnknownHostException e) {
                // A host without a name of its own is reached by address.
            }
        }
        Set<String> hosts = new TreeSet<>();
        for (String n : names) {
            hosts.add(n.toLowerCase(Locale.ROOT) + ":" + bound.getPort());
            if (bound.getPort() == 80) {
                hosts.add(n.toLowerCase(Locale.ROOT)); // a browser leaves the default port out
            }
        }
        return new AllowedHosts(hosts);
    }

    /**
     * @param host the request's {@code Host} header; empty when it had none (HTTP/1.0)
     * @return whether the dashboard answers it
     */
    boolean allows(Optional<String> host) {
        return host.map(h -> hosts.contains(h.strip().toLowerCase(Locale.ROOT))).orElse(false);
    }

    /** An address as a URL names it: IPv6 in brackets, without a zone. */
    private static String literal(InetAddress a) {
        String text = a.getHostAddress();
        int zone = text.indexOf('%');
        if (zone >= 0) {
            text = text.substring(0, zone);
        }
        return text.contains(":") ? "[" + text + "]" : text;
    }
}
