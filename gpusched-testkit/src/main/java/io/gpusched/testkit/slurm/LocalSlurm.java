package io.gpusched.testkit.slurm;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A one-node Slurm cluster of Debian's {@code slurmctld}, {@code slurmd} and {@code munge}, started in a directory
 * of its own: its own munge key and socket, ports, state and spool, and two fake GPUs (character devices made
 * with {@code mknod}, as {@code File=} needs) of {@value #SHARDS_PER_GPU} shards each. {@link #close()} stops
 * the daemons, whatever happened. Slurm's commands find it through {@code SLURM_CONF} ({@link #command}).
 *
 * <pre>{@code
 * Assumptions.assumeTrue(LocalSlurm.available(), LocalSlurm.SKIPPED);
 * try (LocalSlurm slurm = LocalSlurm.start(tempDir)) {
 *     new ProcessBuilder(slurm.command(List.of("sbatch", "--gres=shard:2", "--wrap=true"))).start();
 * }
 * }</pre>
 */
public final class LocalSlurm implements AutoCloseable {
    /** GPUs of the node. */
    public static final int GPUS = 2;
    /** Shards of each GPU. */
    public static final int SHARDS_PER_GPU = 8;
    /** Why a test skips where the cluster cannot start. */
    public static final String SKIPPED = "needs Debian packages slurmctld slurmd slurm-client munge; skipped";

    private final Path dir;
    private final Path conf;
    private final List<Path> pidFiles = new ArrayList<>();

    /** @return whether the daemons and the client are installed and we run as root (mknod, SlurmUser=root) */
    public static boolean available() {
        return List.of("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch",
                "/usr/bin/squeue", "/usr/bin/scancel").stream().allMatch(p -> Files.isExecutable(Path.of(p)))
                && "root".equals(System.getProperty("user.name"));
    }

    /**
     * Starts the cluster and waits until its node is idle (about a second).
     *
     * @param dir an empty directory of its own, e.g. a JUnit temporary directory
     * @return the running cluster; close it
     * @throws IOException if its files cannot be written
     * @throws InterruptedException if interrupted while it starts
     * @throws IllegalStateException if a daemon does not start; its log's tail is in the message
     */
    public static LocalSlurm start(Path dir) throws IOException, InterruptedException {
        return new LocalSlurm(dir);
    }

    private LocalSlurm(Path dir) throws IOException, InterruptedException {
        this.dir = dir;
        this.conf = dir.resolve("slurm.conf");
        // munged refuses a socket whose directory others cannot search, and slurmd reads gres.conf beside slurm.conf
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String d : List.of("state", "spool", "dev")) {
            Files.createDirectories(dir.resolve(d));
        }
        for (int i = 0; i < GPUS; i++) {
            run("mknod", dir.resolve("dev/nvidia" + i).toString(), "c", "195", String.valueOf(i));
        }
        byte[] key = new byte[1024];
        new SecureRandom().nextBytes(key);
        Path keyFile = dir.resolve("munge.key");
        Files.write(keyFile, key);
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        String host = run("hostname", "-s").strip();
        int ctldPort = freePort();
        int slurmdPort = freePort();
        Files.writeString(conf, String.join("\n",
                "ClusterName=gpusched",
                "SlurmctldHost=" + host,
                "SlurmUser=root",
                "SlurmdUser=root",
                "SlurmctldPort=" + ctldPort,
                "SlurmdPort=" + slurmdPort,
                "AuthType=auth/munge",
                "AuthInfo=socket=" + dir.resolve("munge.sock"),
                "CredType=cred/munge",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool"),
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve("slurmd.pid"),
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("slurmd.log"),
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "SchedulerType=sched/backfill",
                "GresTypes=gpu,shard",
                "ReturnToService=2",
                "MpiDefault=none",
                "JobCompType=jobcomp/none",
                "AccountingStorageType=accounting_storage/none",
                // More CPUs than the machine has, so CPUs never limit packing: the test is about GPUs
                "SlurmdParameters=config_overrides",
                "KillWait=2",
                "MinJobAge=600",
                "NodeName=" + host + " CPUs=16 RealMemory=4000 Gres=gpu:" + GPUS + ",shard:" + GPUS * SHARDS_PER_GPU
                        + " State=UNKNOWN",
                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP", ""));
        // One shard line per GPU: a Count spread over several files is split between them
        StringBuilder gres = new StringBuilder("NodeName=" + host + " Name=gpu File=" + dir.resolve("dev/nvidia[0-" + (GPUS - 1) + "]") + "\n");
        for (int i = 0; i < GPUS; i++) {
            gres.append("NodeName=").append(host).append(" Name=shard Count=").append(SHARDS_PER_GPU).append(" File=")
                    .append(dir.resolve("dev/nvidia" + i)).append('\n');
        }
        Files.writeString(dir.resolve("gres.conf"), gres);
        try {
            run("munged", "-f", "--socket=" + dir.resolve("munge.sock"), "--key-file=" + keyFile,
                    "--pid-file=" + dir.resolve("munged.pid"), "--log-file=" + dir.resolve("munged.log"),
                    "--seed-file=" + dir.resolve("munge.seed"));
            pidFiles.add(dir.resolve("munged.pid"));
            pidFiles.add(dir.resolve("slurmctld.pid"));
            run("slurmctld", "-i", "-f", conf.toString());
            pidFiles.add(dir.resolve("slurmd.pid"));
            run("slurmd", "-f", conf.toString());
            awaitIdle();
        } catch (IOException | RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
    }

    /** @return the environment Slurm's commands need to find this cluster */
    public Map<String, String> env() {
        return Map.of("SLURM_CONF", conf.toString());
    }

    /** @return the cluster's directory (configuration, logs, state, fake devices) */
    public Path dir() {
        return dir;
    }

    /**
     * @param argv a Slurm command, e.g. {@code squeue -h}
     * @return it, run through {@code env SLURM_CONF=...} so that it talks to this cluster
     */
    public List<String> command(List<String> argv) {
        List<String> withConf = new ArrayList<>(List.of("env", "SLURM_CONF=" + conf));
        withConf.addAll(argv);
        return withConf;
    }

    private void awaitIdle() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            Process p = new ProcessBuilder(command(List.of("sinfo", "-h", "-o", "%T"))).redirectErrorStream(true).start();
            String state = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() == 0 && state.strip().equals("idle")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the local Slurm node never became idle; see " + dir.resolve("slurmd.log")
                + " and " + dir.resolve("slurmctld.log") + ":\n" + tail(dir.resolve("slurmctld.log")));
    }

    /** Stops the daemons (SIGTERM, then SIGKILL after 5 s) and any process still running from this directory. */
    @Override
    public void close() {
        // Every daemon, each by the pid it wrote: SIGTERM, then SIGKILL if it lingers.
        for (Path pidFile : reversed(pidFiles)) {
            try {
                long pid = Long.parseLong(Files.readString(pidFile).strip());
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.destroy();
                    try {
                        h.onExit().get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        h.destroyForcibly();
                    }
                });
            } catch (IOException | NumberFormatException e) {
                // it never started
            }
        }
        // Jobs of the cluster that outlived slurmd (its steps' processes): end them too.
        ProcessHandle.allProcesses().filter(h -> h.info().commandLine().map(c -> c.contains(dir.toString())).orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
    }

    private static String run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", argv) + " failed: " + out);
        }
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(" + file + " unreadable: " + e.getMessage() + ")";
        }
    }

    private static List<Path> reversed(List<Path> paths) {
        List<Path> r = new ArrayList<>(paths);
        java.util.Collections.reverse(r);
        return r;
    }
}
