package io.gpusched.slurm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The submitting side as a process of its own, for the test that kills it: {@code jobs logDir slurmConf}. */
final class SubmitterMain {
    private SubmitterMain() {
    }

    public static void main(String[] args) {
        CommandRunner system = CommandRunner.system();
        CommandRunner commands = argv -> {
            List<String> withConf = new ArrayList<>(List.of("env", "SLURM_CONF=" + args[2]));
            withConf.addAll(argv);
            return system.run(withConf);
        };
        SlurmOptions options = SlurmEndToEndTest.OPTIONS;
        new SlurmExecutor(Path.of(args[0]), Path.of(args[1]), options, commands, SlurmEndToEndTest.wrapper(),
                System.out::println, System.out::println).run();
    }
}
