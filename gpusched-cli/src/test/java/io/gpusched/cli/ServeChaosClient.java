package io.gpusched.cli;

import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A client of {@link ServeChaosTest}, in its own JVM so the test can SIGKILL it: submits jobs
 * {@code <id>-0 .. <id>-(N-1)} to a daemon that the test kills and restarts, each under its marker as
 * request id, retrying on {@code unreachable}, and appends {@code MARKER NO} to its ack file once the
 * daemon answered. Each job appends {@code $GPUSCHED_JOB_NO MARKER} to the ledger. A restarted client
 * skips what its ack file holds and sends the rest again (the daemon may have journaled them before it
 * died: the request id makes that one job). Prints {@code CLIENT DONE} when every job is acknowledged.
 *
 * <p>Arguments: socket, ledger, ack file, id, N, milliseconds between submissions. Or
 * {@code half SOCKET LEDGER}: sends a whole submit request (marker and request id {@code half}) but not
 * the newline that ends it, prints {@code SENT}, and waits to be killed. Or {@code lost SOCKET LEDGER}:
 * the same (marker {@code lost}) with its newline, never reading the answer.
 */
public final class ServeChaosClient {
    private ServeChaosClient() {
    }

    static String line(Path ledger, String marker) {
        return "[vram=1G] echo \"$GPUSCHED_JOB_NO " + marker + "\" >> " + ledger;
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("half") || args[0].equals("lost")) {
            send(Path.of(args[1]), Path.of(args[2]), args[0]);
            return;
        }
        Path socket = Path.of(args[0]);
        Path ledger = Path.of(args[1]);
        Path acks = Path.of(args[2]);
        String id = args[3];
        int n = Integer.parseInt(args[4]);
        long pause = Long.parseLong(args[5]);
        Set<String> acked = new HashSet<>();
        if (Files.exists(acks)) {
            Files.readAllLines(acks).stream().filter(l -> !l.isBlank()).map(l -> l.split(" ")[0]).forEach(acked::add);
        }
        Optional<GpuschedClient> c = Optional.empty();
        Path cwd = Path.of("").toAbsolutePath();
        for (int i = 0; i < n; i++) {
            String marker = id + "-" + i;
            if (acked.contains(marker)) {
                continue;
            }
            while (true) {
                try {
                    if (c.isEmpty()) {
                        c = Optional.of(GpuschedClient.connect(socket));
                    }
                    int no = c.get().submit(new GpuschedClient.Submission(line(ledger, marker), cwd).withRequestId(marker));
                    Files.writeString(acks, marker + " " + no + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    break;
                } catch (ServiceException e) {
                    if (!e.code().equals("unreachable")) {
                        System.out.println("CLIENT FAILED " + marker + ": " + e.code() + ": " + e.getMessage());
                        System.exit(2);
                    }
                    c.ifPresent(GpuschedClient::close);
                    c = Optional.empty();
                    Thread.sleep(50); // the daemon is down: the test restarts it
                }
            }
            Thread.sleep(pause); // submissions keep arriving while the test's kills land
        }
        c.ifPresent(GpuschedClient::close);
        System.out.println("CLIENT DONE");
    }

    private static void send(Path socket, Path ledger, String marker) throws Exception {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            String req = "{\"v\":1,\"op\":\"submit\",\"line\":\"" + line(ledger, marker).replace("\"", "\\\"")
                    + "\",\"cwd\":\"" + Path.of("").toAbsolutePath() + "\",\"request_id\":\"" + marker + "\"}"
                    + (marker.equals("half") ? "" : "\n");
            ByteBuffer out = ByteBuffer.wrap(req.getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                ch.write(out);
            }
            System.out.println("SENT");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
