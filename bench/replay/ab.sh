#!/usr/bin/env bash
# A/B of the replay (issue #24 item 4): the discrete-event replay it had (Replay.java at OLD, renamed
# OldReplay) against the engine-backed one of this tree, interleaved, on the replay tests' workloads
# (examples/demo.txt, bench/requirements/sweep.txt, bench/starvation/stream.txt, 50 ReplayPolicyTest
# dependency workloads, 10 StarvationReplayTest streams). Prints wall and the loop thread's CPU time per
# case and round, and a hash of the makespans (equal hashes: same results). Round 0 is JIT warm-up.
# Needs a build of core and testkit with their test classes:
#   mvn -B -q -o -pl gpusched-core,gpusched-testkit test-compile -Dmaven.javadoc.skip
# Usage: bench/replay/ab.sh [ROUNDS=3] [OLD=e04fd27]
# Steady state (medians of the last 20 rounds, new/old, same makespans or not): bench/replay/ab.sh 200 | bench/replay/steady.py
# (the engine is JIT-compiled over the first hundred or so rounds: earlier rounds read well above its steady state)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${1:-3}"
old="${2:-e04fd27}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/io/gpusched/testkit/replay"
git -C "$root" show "$old:gpusched-testkit/src/main/java/io/gpusched/testkit/replay/Replay.java" \
  | sed 's/public final class Replay {/public final class OldReplay {/; s/public Replay(/public OldReplay(/g' \
  > "$work/src/io/gpusched/testkit/replay/OldReplay.java"
cp "$root/bench/replay/ReplayAB.java" "$work/src/io/gpusched/testkit/replay/"
(cd "$root/gpusched-core" && mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$work/deps.txt" >/dev/null)
cp="$root/gpusched-core/target/classes:$root/gpusched-testkit/target/classes:$root/gpusched-testkit/target/test-classes:$(cat "$work/deps.txt")"
javac -nowarn -cp "$cp" -d "$work/classes" "$work"/src/io/gpusched/testkit/replay/*.java
java -cp "$work/classes:$cp" io.gpusched.testkit.replay.ReplayAB "$rounds" "$root"
