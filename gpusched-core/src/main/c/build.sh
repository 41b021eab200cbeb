#!/bin/sh
# Compiles the native spawn server into the core's classes directory, so it ships inside the jar next
# to SpawnServer, which extracts and runs it. Called by Maven (see pom.xml).
# usage: build.sh SOURCE OUTPUT
set -eu
src=$1
out=$2
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "gpusched-core: C compiler '$cc' not found; it builds the spawn server (src/main/c/spawnd.c)." >&2
    echo "gpusched-core: install gcc (e.g. 'apt-get install gcc'), or set CC to another compiler." >&2
    exit 1
fi
mkdir -p "$(dirname "$out")"
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -o "$out" "$src"
