package io.gpusched.engine;

import io.gpusched.SchedulerOptions.VisibleDevices;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Starts a job: {@code setsid /bin/sh -c CMD} so the job leads its own session and process group (its
 * pid is both ids), in the scheduler's working directory, stdin from {@code /dev/null}, stdout and
 * stderr appended to its log, and the environment telling it which GPUs it got.
 */
final class JobLauncher {
    private final Path setsid;
    private final Path workDir;
    private final Map<String, String> extraEnv;
    private final VisibleDevices visibleDevices;

    JobLauncher(Path setsid, Path workDir, Map<String, String> extraEnv, VisibleDevices visibleDevices) {
        this.setsid = setsid;
        this.workDir = workDir;
        this.extraEnv = Map.copyOf(extraEnv);
        this.visibleDevices = visibleDevices;
    }

    /** Finds {@code setsid} (util-linux) on the PATH or in the usual places. */
    static Optional<Path> findSetsid() {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : (path + ":/usr/bin:/bin:/usr/sbin:/sbin").split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "setsid");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    Process launch(String command, List<Integer> gpus, GpuSnapshot snapshot, Path log, Map<String, String> jobVars)
            throws IOException {
        Files.createDirectories(log.getParent());
        ProcessBuilder pb = new ProcessBuilder(setsid.toString(), "/bin/sh", "-c", command);
        pb.directory(workDir.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.putAll(extraEnv);
        env.putAll(jobVars);
        env.put("CUDA_VISIBLE_DEVICES", visibleDevices(gpus, snapshot));
        env.put("GPUSCHED_GPUS", gpus.stream().map(String::valueOf).collect(Collectors.joining(",")));
        env.putIfAbsent("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        return pb.start();
    }

    /** UUIDs name exactly the chosen devices whatever CUDA's own ordering; indices when any is unknown. */
    String visibleDevices(List<Integer> gpus, GpuSnapshot snapshot) {
        if (visibleDevices == VisibleDevices.UUID) {
            List<Optional<String>> uuids = gpus.stream()
                    .map(i -> snapshot.gpu(i).flatMap(GpuStat::uuid))
                    .toList();
            if (uuids.stream().allMatch(Optional::isPresent)) {
                return uuids.stream().map(Optional::get).collect(Collectors.joining(","));
            }
        }
        return gpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
