package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser (Debian's headless chromium): the page loads and draws what the daemon
 * shows, a job submitted after it opened appears without a reload, and a screenshot is written to
 * {@code target/dashboard.png}. Skipped when chromium is not installed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardBrowserTest {
    @TempDir
    Path dir;

    @Test
    void theOpenPageShowsAJobSubmittedAfterItOpenedWithoutAReload_andChartsItsMemory() throws Exception {
        Optional<Path> exe = Chromium.find();
        Assumptions.assumeTrue(exe.isPresent(), "no chromium on PATH: install the Debian package chromium "
                + "(apt-get install -y chromium) to run the dashboard's browser test");
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--sample", "0.1", "--dashboard",
                "127.0.0.1:0").start()) {
            // The URL gpusched dashboard prints: the page passes its token on to its stream and API calls.
            String link = DashboardEndToEndTest.link(daemon);
            // Job 1 ends before the page opens: its first attempt fails with CUDA OOM, its retry runs.
            assertEquals(0, daemon.verb("submit", "--vram", "2G", "--retries", "1", "--",
                    "$GPUSCHED_SIMJOB --vram 1800 --ramp 0.6 --hold 0.6 --oom-once " + dir.resolve("oom-marker")).code());
            daemon.awaitQueue("✓ job 1 ok");
            try (Chromium browser = Chromium.start(exe.get(), dir, 1280, 900)) {
                browser.navigate(link);
                browser.await("document.getElementById('result-1') !== null", 30);
                browser.await("document.querySelector('#chart-1 line.oom') !== null", 30); // its OOM retry, marked
                assertEquals("live", browser.eval("document.getElementById('conn').textContent"));
                assertEquals("false", browser.eval("document.getElementById('job-2') !== null"));
                // Set now and still there later: the page was not reloaded.
                browser.eval("window.openedBeforeJob2 = 'yes'");

                assertEquals(0, daemon.verb("submit", "--vram", "3G", "--", "$GPUSCHED_SIMJOB --vram 2500 --ramp 1.5 --hold 8")
                        .code());
                assertEquals(0, daemon.verb("submit", "--vram", "22G", "--", "python train.py --big").code());
                browser.await("document.getElementById('job-2') !== null"
                        + " && document.getElementById('job-2').dataset.state === 'running'", 30);
                browser.await("document.getElementById('job-3') !== null"
                        + " && document.getElementById('job-3').textContent.includes('waits: needs 1 GPU')", 30);
                assertEquals("yes", browser.eval("window.openedBeforeJob2"));
                // Its chart fills as it ramps up: a peak of 2500 MiB under the 3072 MiB declaration.
                browser.await("document.querySelector('#chart-2 text') !== null && "
                        + "document.getElementById('chart-2').textContent.includes('peak 2500 MiB')", 30);
                assertTrue(browser.eval("document.getElementById('chart-2').textContent").contains("declared 3072 MiB"));
                // The GPU's bar follows the rounds' snapshots, a little behind the samples.
                browser.await("document.getElementById('gpu-0').textContent.includes('job 2: 2500 MiB used / 3072 MiB declared')", 30);
                Path png = Path.of("target", "dashboard.png");
                browser.screenshot(png);
                byte[] bytes = Files.readAllBytes(png);
                assertTrue(bytes.length > 10_000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G', "a PNG");
                System.out.println("dashboard screenshot: " + png.toAbsolutePath());

                // The address without its token: the browser shows the one line saying how to get it.
                browser.navigate(DashboardEndToEndTest.url(daemon));
                browser.await("document.body !== null && document.body.textContent.includes('run gpusched dashboard for your URL')",
                        30);
            }
        }
    }
}
