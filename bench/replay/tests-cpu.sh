#!/usr/bin/env bash
# Times the test classes that run the replay (the engine on a virtual clock) of a tree: core's SimulationTest,
# the testkit's ReplayTest, ReplayPolicyTest and StarvationReplayTest, in one JVM, each class's wall and
# process CPU time (JIT and GC threads included). For an A/B, run it on a clone of the other commit too,
# interleaved. Needs a build of core and testkit with their test classes:
#   mvn -B -q -o -pl gpusched-core,gpusched-testkit test-compile -Dmaven.javadoc.skip
# Usage: bench/replay/tests-cpu.sh [ROOT=this tree]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "${1:-$here/../..}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root/gpusched-testkit" && mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$work/deps.txt" >/dev/null)
deps="$(tr ':' '\n' < "$work/deps.txt" | grep -v '/gpusched-core-' | paste -sd:)"
# The launcher of the same version as the platform engine the tests use.
engine="$(tr ':' '\n' < "$work/deps.txt" | grep '/junit-platform-engine-' | head -1)"
version="$(basename "$(dirname "$engine")")"
launcher="$HOME/.m2/repository/org/junit/platform/junit-platform-launcher/$version/junit-platform-launcher-$version.jar"
[ -f "$launcher" ] || (cd "$root" && mvn -B -q dependency:get -Dartifact="org.junit.platform:junit-platform-launcher:$version" >/dev/null)
cp="$root/gpusched-core/target/classes:$root/gpusched-core/target/test-classes:$root/gpusched-testkit/target/classes"
cp="$cp:$root/gpusched-testkit/target/test-classes:$deps:$launcher"
javac -nowarn -cp "$cp" -d "$work/classes" "$here/ReplayTestsCpu.java"
cd "$root/gpusched-testkit" # the tests read ../bench/... as surefire runs them
java -ea -cp "$work/classes:$cp" ReplayTestsCpu io.gpusched.SimulationTest io.gpusched.testkit.replay.ReplayTest \
  io.gpusched.testkit.replay.ReplayPolicyTest io.gpusched.testkit.replay.StarvationReplayTest 2>&1 | grep -v '^WARNING'
