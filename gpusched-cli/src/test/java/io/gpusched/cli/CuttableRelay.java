package io.gpusched.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on loopback in front of a dashboard, which a test cuts and mends: the network between a
 * page and its daemon going away and coming back while the daemon runs on (a restarted daemon draws new
 * tokens, so it cannot show a page reconnecting). Each request's {@code Host} line is rewritten to the
 * dashboard's own address, which it requires; the relay carries GET and HEAD requests only, which have
 * no body, so the browser's side is read line by line.
 */
final class CuttableRelay implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    private CuttableRelay(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    /** Starts relaying a free loopback port to {@code 127.0.0.1:target}. */
    static CuttableRelay to(int target) throws IOException {
        CuttableRelay r = new CuttableRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
        daemon(r::accept);
        return r;
    }

    /** @return the port it listens on */
    int port() {
        return server.getLocalPort();
    }

    /** Drops every open connection and refuses new ones until {@link #mend}. */
    void cut() {
        cut = true;
        open.forEach(CuttableRelay::quietly);
        open.clear();
    }

    /** Relays new connections again. */
    void mend() {
        cut = false;
    }

    @Override
    public void close() {
        quietly(server);
        cut();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket page = server.accept();
                if (cut) {
                    page.close();
                    continue;
                }
                Socket dashboard;
                try {
                    dashboard = new Socket(InetAddress.getLoopbackAddress(), target);
                } catch (IOException e) {
                    // The dashboard is gone: so is this connection, as when the page reached it directly.
                    page.close();
                    continue;
                }
                open.add(page);
                open.add(dashboard);
                daemon(() -> requests(page, dashboard));
                daemon(() -> copy(dashboard, page));
            } catch (IOException e) {
                // closed, or one connection failed: the page retries
            }
        }
    }

    /** The page's requests, with the dashboard's own Host. */
    private void requests(Socket page, Socket dashboard) {
        try (page; dashboard) {
            InputStream in = page.getInputStream();
            OutputStream out = dashboard.getOutputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0; b = in.read()) {
                line.append((char) b);
                if (b == '\n') {
                    String l = line.toString();
                    if (l.regionMatches(true, 0, "Host:", 0, 5)) {
                        l = "Host: 127.0.0.1:" + target + "\r\n";
                    }
                    out.write(l.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    line.setLength(0);
                }
            }
        } catch (IOException e) {
            // cut, or the page went away
        }
    }

    private static void copy(Socket from, Socket to) {
        try (from; to) {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
            // cut, or the page went away
        }
    }

    private static void quietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "cuttable-relay");
        t.setDaemon(true);
        t.start();
    }
}
