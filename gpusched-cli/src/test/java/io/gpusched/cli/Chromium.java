package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's headless chromium, driven over the DevTools protocol (a WebSocket on a port it picks): open a
 * page, evaluate JavaScript in it, take a screenshot. Used instead of {@code --dump-dom} or
 * {@code --screenshot}, which capture the page as soon as it has loaded, before its first Server-Sent
 * Event, and instead of {@code --virtual-time-budget}, which never runs out while the page's event stream
 * is open (virtual time pauses for pending network fetches).
 */
final class Chromium implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();
    private final Process process;
    private final WebSocket socket;
    private final Map<Integer, CompletableFuture<String>> answers = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();

    private Chromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    /** @return chromium's executable on PATH (Debian's package {@code chromium}), if any */
    static Optional<Path> find() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            for (String name : new String[] {"chromium", "chromium-browser"}) {
                Path p = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /** Starts it on about:blank with a fresh profile in {@code dir}, its output in {@code dir/chromium.log}. */
    static Chromium start(Path exe, Path dir, int width, int height) throws Exception {
        Path profile = Files.createDirectories(dir.resolve("profile"));
        Process p = new ProcessBuilder(exe.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-port=0", "--user-data-dir=" + profile, "--window-size=" + width + "," + height,
                "--hide-scrollbars", "--no-first-run", "about:blank")
                .redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile()).start();
        Path active = profile.resolve("DevToolsActivePort");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !Files.exists(active) || Files.size(active) == 0;
             Thread.sleep(50)) {
            if (System.nanoTime() > end || !p.isAlive()) {
                p.destroyForcibly();
                throw new AssertionError("chromium did not start: " + Files.readString(dir.resolve("chromium.log")));
            }
        }
        int port = Integer.parseInt(Files.readAllLines(active).get(0).strip());
        HttpClient http = HttpClient.newHttpClient();
        String pageUrl = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); pageUrl == null; Thread.sleep(50)) {
            String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("\"type\"\\s*:\\s*\"page\"[^}]*?\"webSocketDebuggerUrl\"\\s*:\\s*\"([^\"]+)\"")
                    .matcher(list);
            if (m.find()) {
                pageUrl = m.group(1);
            } else if (System.nanoTime() > end) {
                p.destroyForcibly();
                throw new AssertionError("chromium shows no page: " + list);
            }
        }
        Chromium[] self = new Chromium[1];
        StringBuilder partial = new StringBuilder();
        WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(pageUrl), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String message = partial.toString();
                    partial.setLength(0);
                    topLevelId(message).ifPresent(id -> {
                        CompletableFuture<String> f = self[0].answers.remove(id);
                        if (f != null) {
                            f.complete(message);
                        }
                    });
                }
                w.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
        self[0] = new Chromium(p, ws);
        self[0].call("Emulation.setDeviceMetricsOverride", "{\"width\":" + width + ",\"height\":" + height
                + ",\"deviceScaleFactor\":1,\"mobile\":false}");
        return self[0];
    }

    /** Sends one command and waits for its answer; @return the answer's JSON text */
    String call(String method, String params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<String> answer = new CompletableFuture<>();
        answers.put(id, answer);
        socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}", true).get(30, TimeUnit.SECONDS);
        String a = answer.get(60, TimeUnit.SECONDS);
        if (a.contains("\"error\":{")) {
            throw new AssertionError(method + " failed: " + a);
        }
        return a;
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", "{\"url\":\"" + url + "\"}");
    }

    /** @return the value of a JavaScript expression that gives a string */
    String eval(String expression) throws Exception {
        String a = call("Runtime.evaluate", "{\"expression\":" + quote("String(" + expression + ")")
                + ",\"returnByValue\":true}");
        return stringField(a, "value").orElseThrow(() -> new AssertionError("no value: " + a));
    }

    /** Waits until the expression gives "true"; @return how long it took, in ms */
    long await(String expression, long seconds) throws Exception {
        long start = System.nanoTime();
        for (long end = start + TimeUnit.SECONDS.toNanos(seconds); !eval(expression).equals("true"); Thread.sleep(100)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the page never made this true in " + seconds + " s: " + expression
                        + "\npage text: " + eval("document.body.innerText"));
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** Writes a PNG of the viewport to {@code file}. */
    void screenshot(Path file) throws Exception {
        String a = call("Page.captureScreenshot", "{\"format\":\"png\"}");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, Base64.getDecoder().decode(stringField(a, "data").orElseThrow()));
    }

    @Override
    public void close() {
        socket.abort();
        // Its renderer and helper processes too, taken before they lose their parent: one still writing in
        // the profile after the browser ended made the test's temporary directory fail to delete (seen once).
        java.util.List<ProcessHandle> helpers = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (ProcessHandle h : helpers) {
                h.destroyForcibly();
                h.onExit().get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // a helper that will not end is the temporary directory's cleanup to report
        }
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static Optional<Integer> topLevelId(String json) {
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (name.equals("id") && t == JsonToken.VALUE_NUMBER_INT) {
                    return Optional.of(p.getIntValue());
                }
                p.skipChildren();
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first string field of that name, at any depth. */
    private static Optional<String> stringField(String json, String field) {
        try (JsonParser p = JSON.createParser(json)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && p.currentName().equals(field) && p.nextToken() == JsonToken.VALUE_STRING) {
                    return Optional.of(p.getText());
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
