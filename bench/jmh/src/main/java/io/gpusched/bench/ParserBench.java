package io.gpusched.bench;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Parse (and key: SHA-1 per line) a 10,000-line jobs file. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ParserBench {
    private String text;

    @Setup
    public void setup() {
        StringBuilder sb = new StringBuilder("# 10,000 lines\n");
        for (int i = 0; i < 10_000; i++) {
            sb.append("[vram=").append(1 + i % 20).append("G").append(i % 10 == 0 ? " timeout=2h retries=1" : "")
                    .append("] python train.py --seed ").append(i % 5000).append(" --lr 0.001\n");
        }
        text = sb.toString();
    }

    @Benchmark
    public List<JobSpec> parse10k() {
        return JobsFileParser.parse(text, "bench");
    }
}
