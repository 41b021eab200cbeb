package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The {@code dashboard} op: the caller's own URL from the hook the CLI supplies, named by the kernel. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardOpTest {
    @TempDir
    Path dir;

    private Scheduler scheduler;
    private RunningScheduler running;

    @BeforeEach
    void start() throws Exception {
        running = RunningScheduler.start(RunningScheduler.builder(dir, 0).build());
        scheduler = running.scheduler();
    }

    @AfterEach
    void stop() throws Exception {
        running.close();
    }

    @Test
    void theCallerGetsTheUrlTheHookGivesTheUserTheKernelNamed() {
        List<String> asked = new CopyOnWriteArrayList<>();
        DashboardLinks links = user -> {
            asked.add(user);
            return Optional.of("http://127.0.0.1:1/?token=for-" + user);
        };
        try (ServiceServer s = ServiceServer.start(scheduler, dir.resolve("a.sock"), ServiceServer.Access.OWNER_ONLY,
                Optional.empty(), Optional.of(links));
             GpuschedClient c = GpuschedClient.connect(s.socket())) {
            assertEquals("http://127.0.0.1:1/?token=for-" + System.getProperty("user.name"), c.dashboardUrl());
            assertEquals(List.of(System.getProperty("user.name")), asked);
        }
    }

    @Test
    void withoutADashboardOrForAUserItDoesNotServeTheAnswerIsNotServed() {
        for (Optional<DashboardLinks> links : List.<Optional<DashboardLinks>>of(Optional.empty(),
                Optional.of(user -> Optional.empty()))) {
            try (ServiceServer s = ServiceServer.start(scheduler, dir.resolve("b.sock"), ServiceServer.Access.OWNER_ONLY,
                    Optional.empty(), links);
                 GpuschedClient c = GpuschedClient.connect(s.socket())) {
                ServiceException e = assertThrows(ServiceException.class, c::dashboardUrl);
                assertEquals("not_served", e.code());
                assertTrue(e.getMessage().contains("start it with gpusched serve --dashboard PORT"), e.getMessage());
            }
        }
    }
}
