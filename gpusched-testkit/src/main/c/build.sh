#!/bin/sh
# Compiles the native simulated job into the testkit's classes directory, so it ships inside the
# jar next to the Java classes that extract and run it. Called by Maven (see pom.xml).
# usage: build.sh SOURCE OUTPUT
set -eu
src=$1
out=$2
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "gpusched-testkit: C compiler '$cc' not found; it builds the simulated GPU job (src/main/c/simjob.c)." >&2
    echo "gpusched-testkit: install gcc (e.g. 'apt-get install gcc' or 'dnf install gcc'), or set CC to another compiler." >&2
    exit 1
fi
mkdir -p "$(dirname "$out")"
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -o "$out" "$src"
