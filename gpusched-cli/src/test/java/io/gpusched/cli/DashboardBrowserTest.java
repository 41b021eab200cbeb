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
 * {@code target/dashboard.png}; at 800 px wide it keeps every column, a job over its declaration stands
 * out, and a lost stream dims what is shown ({@code target/dashboard-800.png}, {@code target/dashboard-stale.png}).
 * Skipped when chromium is not installed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardBrowserTest {
    @TempDir
    Path dir;

    private static Path chromium() {
        Optional<Path> exe = Chromium.find();
        Assumptions.assumeTrue(exe.isPresent(), "no chromium on PATH: install the Debian package chromium "
                + "(apt-get install -y chromium) to run the dashboard's browser test");
        return exe.get();
    }

    private static void png(Chromium browser, Path png) throws Exception {
        browser.screenshot(png);
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 10_000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G', "a PNG");
        System.out.println("dashboard screenshot: " + png.toAbsolutePath());
    }

    @Test
    void at800PixelsAJobOverItsDeclarationIsYellow_whereAndWhyStays_andALostStreamDimsThePageUntilItIsBack()
            throws Exception {
        Path exe = chromium();
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--sample", "0.1", "--dashboard",
                "127.0.0.1:0").start()) {
            String link = DashboardEndToEndTest.link(daemon);
            // Job 1 holds 1500 MiB of the 1024 it declared; job 2 stays within; job 3 cannot fit beside them.
            assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.3 --hold 120")
                    .code());
            assertEquals(0, daemon.verb("submit", "--vram", "2G", "--", "$GPUSCHED_SIMJOB --vram 1000 --ramp 0.3 --hold 120")
                    .code());
            assertEquals(0, daemon.verb("submit", "--vram", "22G", "--", "python train.py --big").code());
            // The page reaches the dashboard through a relay the test can cut.
            int port = java.net.URI.create(link).getPort();
            try (CuttableRelay relay = CuttableRelay.to(port); Chromium browser = Chromium.start(exe, dir, 800, 900)) {
                browser.navigate(link.replace(":" + port + "/", ":" + relay.port() + "/"));
                browser.await("document.querySelector('#job-1 .over') !== null"
                        + " && document.getElementById('job-1').textContent.includes('1500 MiB now of 1024 MiB declared')", 30);
                // Yellow, as top draws it, with its reason in a title and in the key above the GPUs.
                assertEquals("rgb(255, 224, 102)", browser.eval("getComputedStyle(document.querySelector('#job-1 .over'))"
                        + ".backgroundColor"));
                assertTrue(browser.eval("document.querySelector('#job-1 .over').title").contains("more than the 1024 MiB it declared"));
                browser.await("document.querySelector('#gpu-0 .legend .over') !== null", 30);
                assertTrue(browser.eval("document.querySelector('#gpu-0 .legend .over').textContent")
                        .contains("job 1: 1500 MiB used / 1024 MiB declared"));
                assertEquals("false", browser.eval("document.querySelector('#job-2 .over') !== null"), "job 2 is within");
                assertTrue(browser.eval("document.querySelector('.key').textContent.replace(/\\s+/g, ' ')").contains("where a job holds more than it declared"));

                // Every column of the queue within the 800 px window, where / why wide enough to read.
                browser.await("document.getElementById('job-3') !== null", 30);
                for (String cell : new String[] {"#queue th.why", "#job-3 td.why", "#job-1 td.why"}) {
                    String fits = browser.eval("(() => { const r = document.querySelector('" + cell + "').getBoundingClientRect();"
                            + " return r.left >= 0 && r.right <= window.innerWidth && r.width >= 150 && r.height > 0; })()");
                    assertEquals("true", fits, cell + " at " + browser.eval("JSON.stringify(document.querySelector('" + cell
                            + "').getBoundingClientRect())"));
                }
                assertTrue(browser.eval("document.querySelector('#job-3 td.why').textContent").contains("waits: needs 1 GPU"));
                assertEquals("true", browser.eval("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll");
                // The GPU's memory and utilisation over time, from a point a second.
                browser.await("document.querySelector('#gpu-0 .hist polygon.mem') !== null"
                        + " && document.querySelector('#gpu-0 .hist polyline.util') !== null", 30);
                png(browser, Path.of("target", "dashboard-800.png"));

                // The network between them goes (the daemon runs on): dimmed and marked, then live again.
                relay.cut();
                browser.await("document.body.classList.contains('stale')", 30);
                String conn = browser.eval("document.getElementById('conn').textContent");
                assertTrue(conn.matches("disconnected since \\d\\d:\\d\\d:\\d\\d — retrying"), conn);
                assertTrue(Double.parseDouble(browser.eval("getComputedStyle(document.querySelector('main')).opacity")) < 0.6);
                assertTrue(browser.eval("document.getElementById('banner').textContent").contains("what is shown is as of then"));
                png(browser, Path.of("target", "dashboard-stale.png"));
                relay.mend();
                browser.await("!document.body.classList.contains('stale')"
                        + " && document.getElementById('conn').textContent === 'live'"
                        + " && getComputedStyle(document.querySelector('main')).opacity === '1'", 30);
                browser.await("document.querySelector('#job-1 .over') !== null", 30);

                // The daemon goes.
                assertEquals(130, daemon.stop());
                browser.await("document.body.classList.contains('stale')"
                        + " && /^disconnected since \\d\\d:\\d\\d:\\d\\d — retrying$/.test(document.getElementById('conn').textContent)", 30);
            }
        }
    }

    @Test
    void withoutJavaScriptThePageSaysItNeedsIt_andLinksTheQueueWithTheUsersToken() throws Exception {
        Path exe = chromium();
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--dashboard", "127.0.0.1:0").start();
             Chromium browser = Chromium.start(exe, dir, 800, 600)) {
            String link = DashboardEndToEndTest.link(daemon);
            browser.call("Emulation.setScriptExecutionDisabled", "{\"value\":true}");
            browser.navigate(link);
            browser.await("document.getElementById('noscript') !== null", 30);
            String text = browser.eval("document.getElementById('noscript').textContent");
            assertTrue(text.contains("needs JavaScript") && text.contains("gpusched top") && text.contains("gpusched queue"), text);
            assertEquals(DashboardEndToEndTest.at(link, "api/queue"), browser.eval("document.querySelector('#noscript a').href"));
            assertEquals("connecting…", browser.eval("document.getElementById('conn').textContent"), "no script ran");
        }
    }

    @Test
    void theOpenPageShowsAJobSubmittedAfterItOpenedWithoutAReload_andChartsItsMemory() throws Exception {
        Optional<Path> exe = Optional.of(chromium());
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
                png(browser, Path.of("target", "dashboard.png"));

                // The address without its token: the browser shows the one line saying how to get it.
                browser.navigate(DashboardEndToEndTest.url(daemon));
                browser.await("document.body !== null && document.body.textContent.includes('run gpusched dashboard for your URL')",
                        30);
            }
        }
    }
}
