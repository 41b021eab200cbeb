#!/usr/bin/env bash
# The benchmark harness: builds the CLI jar and the JMH module (-Pbench, not part of `mvn verify`),
# runs JMH for the allocator and the parser, every end-to-end row of issue #5 (bench/e2e.py), then the
# task-spooler comparison and the per-job breakdown of issue #18 (bench/vs_tsp.py, bench/breakdown.py).
# Usage: bench/run.sh [RUNS]   (RUNS >= 5 by default; JMH_ARGS overrides the short JMH settings)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-5}"
cd "$root"
mvn -B -q -DskipTests package -pl gpusched-cli -am >&2
mvn -B -q -DskipTests -Dmaven.javadoc.skip=true -Pbench package -pl bench/jmh -am >&2
echo "## JMH (allocator 8 GPUs x 64 occupants; parser 10,000 lines)"
java -jar bench/jmh/target/benchmarks.jar ${JMH_ARGS:--f 1 -wi 3 -w 1s -i 5 -r 1s} 'io.gpusched.bench.*Bench' 2>&1 \
  | sed -n '/^Benchmark/,$p'
echo
echo "## End to end ($runs runs each)"
python3 bench/e2e.py --runs "$runs"
echo
echo "## Beside task-spooler (issue #18; installs task-spooler with apt where tsp is missing)"
python3 bench/vs_tsp.py --runs "$runs"
echo
echo "## Where a trivial job's time goes"
python3 bench/breakdown.py --runs "$runs"
