#!/usr/bin/env bash
# Prepares .dev/ (git-ignored through .git/info/exclude) for bench/gpu/check.sh on a machine with an NVIDIA
# GPU but no Java: a trimmed Java 17 runtime (jlink, about 35 MB), the built gpusched.jar, and gpu_alloc, a
# job that holds real GPU memory through the CUDA driver API (dlopen of libcuda.so.1; no CUDA toolkit).
# Usage, from the repository root: bench/gpu/prepare.sh [JDK_HOME], then on the GPU machine, with the
# repository and .dev/ copied there and OUT set to a folder for the results: bash bench/gpu/check.sh
set -euo pipefail
jdk="${1:-/usr/lib/jvm/java-17-openjdk-amd64}"
mvn -B -q -o -DskipTests -Dmaven.javadoc.skip package -pl gpusched-cli -am
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
rm -rf .dev/jre && mkdir -p .dev
# java.desktop is left out: only JNA's optional AWT support names it.
"$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,jdk.httpserver,jdk.management,jdk.net,jdk.unsupported,jdk.crypto.ec \
  --strip-debug --no-header-files --no-man-pages --compress=2 --output .dev/jre
cp gpusched-cli/target/gpusched.jar bench/gpu/check.sh .dev/
gcc -O2 -Wall -Wextra -Werror -o .dev/gpu_alloc bench/gpu/gpu_alloc.c -ldl
du -sh .dev
