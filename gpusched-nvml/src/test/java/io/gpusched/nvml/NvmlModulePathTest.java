package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The nvml backend as named modules (the other tests run on the class path): ServiceLoader finds it
 * through {@code provides}, and JNA can still map its structures ({@code opens ... to com.sun.jna}).
 */
class NvmlModulePathTest {
    @TempDir
    Path tmp;

    @Test
    void worksOnTheModulePath() throws Exception {
        String modulePath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> p.contains("gpusched-core") || p.contains("gpusched-nvml") && !p.endsWith("test-classes")
                        || p.contains("jna") || p.contains("jackson-core"))
                .collect(Collectors.joining(File.pathSeparator));
        Path main = tmp.resolve("Check.java");
        Files.writeString(main, String.join("\n",
                "import io.gpusched.gpu.*;",
                "public class Check {",
                "    public static void main(String[] a) {",
                "        try (GpuBackend b = GpuBackends.load(\"nvml\", BackendOptions.of(\"library\", a[0]))) {",
                "            GpuSnapshot s = b.snapshot();",
                "            System.out.println(\"gpus=\" + s.gpus().size() + \" procs=\" + s.processes().size()",
                "                    + \" module=\" + b.getClass().getModule().getName());",
                "        }",
                "    }",
                "}"));
        Path state = tmp.resolve("state");
        Files.writeString(state, FakeNvml.TWO_GPUS + "\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-p", modulePath, "--add-modules", "io.gpusched.nvml", main.toString(),
                FakeNvml.Variant.MODERN.library().toString()).redirectErrorStream(true);
        pb.environment().put("FAKE_NVML_STATE", state.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("gpus=2 procs=2 module=io.gpusched.nvml"), out);
    }
}
