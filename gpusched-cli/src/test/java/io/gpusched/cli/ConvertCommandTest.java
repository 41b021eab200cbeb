package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched convert --from gpu_scheduler}: seed 001's CSV jobs file as ours, exactly. */
class ConvertCommandTest {
    @TempDir
    Path dir;

    private static final String CSV = String.join("\n",
            "priority,script_path,conda_env,arguments,allowed_gpus",
            "# Comments start with #",
            "0,/path/to/train.py,pytorch_env,--llm qwen2.5-7b-inst --epochs 100,0-3",
            "1,/path/to/eval.py,pytorch_env,--llm qwen2.5-3b-inst --dataset test,",
            "2,/path/to/inference.py,,--llm qwen2.5-32b-inst --batch_size 1,4,5,6,7",
            "",
            "-3, /home/u/my scripts/it's.py , /opt/envs/a b ,--cuda 2 --x 'a b',1",
            "high,/path/to/bad.py,env,,",
            "0,/path/only-two-fields.py",
            "5,/path/to/pins.py,env,,0-3,9-8",
            "") + "\r\n";

    @Test
    void convertsEveryFieldAndSaysWhatItCannot() throws Exception {
        Path csv = Files.writeString(dir.resolve("jobs.txt"), CSV);
        Result r = ServeDaemon.cli("convert", "--from", "gpu_scheduler", csv.toString());
        assertEquals(String.join("\n",
                "# Comments start with #",
                "[gpus=1 gpu-ids=0-3 conda=pytorch_env unique] python /path/to/train.py --llm qwen2.5-7b-inst --epochs 100",
                "[priority=-1 conda=pytorch_env unique] python /path/to/eval.py --llm qwen2.5-3b-inst --dataset test",
                "[priority=-2 gpus=1 gpu-ids=4,5,6,7 unique] python /path/to/inference.py --llm qwen2.5-32b-inst --batch_size 1",
                "",
                "[priority=3 gpu-ids=1 conda='/opt/envs/a b' unique] python '/home/u/my scripts/it'\\''s.py' --cuda 2 --x 'a b'",
                "",
                ""), r.out());
        assertEquals(String.join("\n",
                "gpusched convert: " + csv + ":7: --cuda is passed as written; gpusched does not rewrite it with the job's"
                        + " GPUs (they are in CUDA_VISIBLE_DEVICES, as cuda:0 on, and GPUSCHED_GPUS)",
                "gpusched convert: " + csv + ":8: priority is not a whole number within ±1000000, skipped: high,/path/to/bad.py,env,,",
                "gpusched convert: " + csv + ":9: not priority,script_path,conda_env,arguments,allowed_gpus, skipped:"
                        + " 0,/path/only-two-fields.py",
                "gpusched convert: " + csv + ":10: gpu-ids range 9-8 runs backwards in 'gpu-ids=0-3,9-8'; write the lower index first:"
                        + " 8-9, skipped: 5,/path/to/pins.py,env,,0-3,9-8",
                ""), r.err());
        assertEquals(1, r.code(), "a line was left out");

        // What it wrote is a jobs file: every job line parses, with what the CSV said.
        List<JobSpec> jobs = JobsFileParser.parse(r.out(), "converted.txt");
        assertEquals(4, jobs.size());
        assertEquals(List.of("0", "1", "2", "3"), jobs.get(0).scheduling().gpuIds());
        // allowed_gpus is "any of these": one GPU among the pins, not all of them.
        assertEquals(1, jobs.get(0).gpus());
        assertEquals(1, jobs.get(2).gpus());
        assertEquals(List.of("1"), jobs.get(3).scheduling().gpuIds());
        assertEquals(1, jobs.get(3).gpus());
        assertEquals(Optional.of("pytorch_env"), jobs.get(0).environment().conda());
        assertEquals(-2, jobs.get(2).scheduling().priority());
        assertEquals(Optional.empty(), jobs.get(2).environment().conda());
        assertEquals(Optional.of("/opt/envs/a b"), jobs.get(3).environment().conda());
        assertEquals("python '/home/u/my scripts/it'\\''s.py' --cuda 2 --x 'a b'", jobs.get(3).command());
        assertTrue(jobs.stream().allMatch(JobSpec::unique), "gpu_scheduler's users rely on its deduplication");
    }

    /** A line that is not UTF-8 was "gpusched: cannot read FILE: Input length = 1", naming neither line nor fix. */
    @Test
    void aLineThatIsNotUtf8IsOneLineNamingFileLineAndFix() throws Exception {
        Path csv = Files.write(dir.resolve("jobs.csv"), "0,/a.py,,,\r\n# caf\u00e9\n1,/b.py,,,\n".getBytes(
                java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals(new Result(1, "", "gpusched convert: " + csv + ":2: line is not valid UTF-8; save the file as UTF-8"
                + " (iconv -f latin1 -t utf-8)\n"), ServeDaemon.cli("convert", "--from", "gpu_scheduler", csv.toString()));
    }

    @Test
    void aCleanFileExits0_andTheCommandLineIsChecked() throws Exception {
        Path csv = Files.writeString(dir.resolve("jobs.txt"), "0,/a.py,,,\n");
        assertEquals(new Result(0, "[unique] python /a.py\n", ""), ServeDaemon.cli("convert", "--from", "gpu_scheduler", csv.toString()));
        assertEquals(2, ServeDaemon.cli("convert", csv.toString()).code());
        assertEquals(new Result(2, "", "gpusched: convert knows --from gpu_scheduler only, not slurm\n"),
                ServeDaemon.cli("convert", "--from", "slurm", csv.toString()));
    }
}
