package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DashboardAddressTest {
    @Test
    void aPortAloneIsLoopback_andHostsAndV6LiteralsAreRead() {
        DashboardAddress a = DashboardAddress.parse("8765");
        assertEquals("127.0.0.1", a.host());
        assertEquals(8765, a.port());
        assertTrue(a.loopback());
        assertTrue(DashboardAddress.parse("[::1]:0").loopback());
        assertTrue(DashboardAddress.parse("localhost:80").loopback());
        assertTrue(!DashboardAddress.parse("0.0.0.0:8765").loopback());
    }

    @Test
    void beyondLoopbackIsRefusedWithoutThePublicFlag_inOneLineThatSaysWhyAndWhatToDo() {
        DashboardAddress any = DashboardAddress.parse("0.0.0.0:8765");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> any.requireAllowed(false));
        assertEquals("--dashboard 0.0.0.0:8765 is not a loopback address: the dashboard speaks plain HTTP, so its users' "
                + "tokens and every job's command, user and paths would cross the network unencrypted; add "
                + "--dashboard-public if that is what you want, or use 127.0.0.1:8765", e.getMessage());
        any.requireAllowed(true);
        DashboardAddress.parse("127.0.0.1:1").requireAllowed(false);
    }

    @Test
    void badValuesAreOneLineErrors() {
        for (String bad : new String[] {"", "x", "70000", "-1", ":80", "::1:80", "127.0.0.1:"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DashboardAddress.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("--dashboard") && !e.getMessage().contains("\n"), e.getMessage());
        }
    }
}
