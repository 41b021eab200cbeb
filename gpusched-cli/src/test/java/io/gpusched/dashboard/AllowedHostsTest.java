package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AllowedHostsTest {
    private static AllowedHosts on(String asked, int port) {
        DashboardAddress a = DashboardAddress.parse(asked);
        return AllowedHosts.of(a, new InetSocketAddress(a.address(), port));
    }

    @Test
    void theBoundAddressAndLocalhostWithThePortAreAnswered() {
        AllowedHosts h = on("127.0.0.1:0", 8765);
        for (String ok : new String[] {"127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765"}) {
            assertTrue(h.allows(Optional.of(ok)), ok);
        }
    }

    @Test
    void anyOtherNameOrPortIsRefused_asADnsRebindingPageWouldSendIt() {
        AllowedHosts h = on("127.0.0.1:0", 8765);
        for (String bad : new String[] {"attacker.example:8765", "attacker.example", "127.0.0.1:8766", "127.0.0.1",
                "localhost", "localhost:8765.attacker.example", "127.0.0.2:8765", "", "localhost:8765 x"}) {
            assertFalse(h.allows(Optional.of(bad)), bad);
        }
        assertFalse(h.allows(Optional.empty()), "HTTP/1.0 without a Host");
    }

    @Test
    void port80MayBeLeftOut_asBrowsersDo() {
        AllowedHosts h = on("127.0.0.1:80", 80);
        assertTrue(h.allows(Optional.of("127.0.0.1")) && h.allows(Optional.of("localhost:80")));
    }

    @Test
    void theNameGivenToDashboardIsAnswered_andAnIpv6Literal() {
        assertTrue(on("localhost:0", 9000).allows(Optional.of("localhost:9000")));
        AllowedHosts v6 = on("[::1]:0", 9000);
        assertTrue(v6.allows(Optional.of("[::1]:9000")));
        assertTrue(v6.allows(Optional.of("[0:0:0:0:0:0:0:1]:9000")));
    }
}
