#!/usr/bin/env bash
# Compiles the fake libnvidia-ml.so.1 (fake_nvml.c) once per simulated driver generation, into
# OUT/<variant>/libnvidia-ml.so.1. Run by Maven in generate-test-resources; skips up-to-date builds.
set -euo pipefail
src_dir="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build-fake-nvml.sh OUT_DIR}"
cc="${CC:-gcc}"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "ERROR: '$cc' not found. gcc is needed to build the fake NVML library the gpusched-nvml tests run against;" >&2
  echo "       install it (e.g. apt-get install gcc) or skip the tests with -DskipTests." >&2
  exit 1
fi
# variant name, then the -D flags that make it (see the header of fake_nvml.c)
variants=(
  "modern   -DFAKE_V3_STRIDE=24 -DFAKE_CONF_COMPUTE -DFAKE_DETAIL_LIST"
  "legacy   -DFAKE_LEGACY -DFAKE_NO_MEMORY_V2"
  "no_v3    -DFAKE_NO_V3 -DFAKE_NO_MEMORY_V2"
  "r535     -DFAKE_V3_STRIDE=32 -DFAKE_CONF_COMPUTE"
  "r535_unlabelled -DFAKE_V3_STRIDE=32 -DFAKE_CONF_COMPUTE -DFAKE_DETAIL_LIST"
  "r535_fixed -DFAKE_V3_STRIDE=24 -DFAKE_CONF_COMPUTE"
)
for line in "${variants[@]}"; do
  read -r name flags <<<"$line"
  lib="$out/$name/libnvidia-ml.so.1"
  if [[ "$lib" -nt "$src_dir/fake_nvml.c" && "$lib" -nt "$0" ]]; then
    continue
  fi
  mkdir -p "$out/$name"
  # shellcheck disable=SC2086 # flags are meant to split
  "$cc" -shared -fPIC -O2 -Wall -Wextra -Werror -fvisibility=hidden -Wl,-soname,libnvidia-ml.so.1 \
    $flags -o "$lib" "$src_dir/fake_nvml.c"
done
