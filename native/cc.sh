#!/bin/sh
# Compiles one of the project's small C programs into a module's classes directory, so it ships inside
# that module's jar next to the Java class that extracts and runs it: the simulated GPU job (testkit)
# and the spawn server (core). Called by those modules' Maven builds (see their pom.xml).
# usage: cc.sh SOURCE OUTPUT
set -eu
src=$1
out=$2
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "gpusched: C compiler '$cc' not found; it builds $(basename "$src") into $(basename "$out")." >&2
    echo "gpusched: install gcc (e.g. 'apt-get install gcc' or 'dnf install gcc'), or set CC to another compiler." >&2
    exit 1
fi
mkdir -p "$(dirname "$out")"
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -o "$out" "$src"
# Its digests beside it (OUTPUT.sha1, OUTPUT.sha256): the class that extracts it names the copy by its
# digest, and hashing some 20 KB at every start is interpreted work on every run's clock (issue #24).
# Without the tools they are left out, and the digest is computed at run time instead.
rm -f "$out.sha1" "$out.sha256"
if command -v sha1sum >/dev/null 2>&1; then sha1sum "$out" | cut -d' ' -f1 >"$out.sha1"; fi
if command -v sha256sum >/dev/null 2>&1; then sha256sum "$out" | cut -d' ' -f1 >"$out.sha256"; fi
