#!/usr/bin/env bash
# The JVM flags bin/gpusched runs gpusched with, for the benches: read from bin/gpusched itself (its
# `opts=(...)` list), so a bench runs the JVM as users do and cannot drift from the launcher. Not the
# launcher's class-data archive or ahead-of-time cache (made per build and per JDK): a bench that wants
# those runs bin/gpusched.
#
#   . bench/jvm_flags.sh                   # sourced (bash): sets the array jvm_flags, from this checkout
#   bench/jvm_flags.sh [LAUNCHER]          # run: prints them, one a line (for the Python benches)
#
# LAUNCHER defaults to this checkout's bin/gpusched (sourced, no argument is read: a file sourced without
# arguments sees its caller's). Fails, saying so, when it has no such list or the
# list holds anything but flags (the launcher's format changed: fix the reading here).
gpusched_jvm_flags() {
  local launcher="$1" line inside=0 body="" f
  if [ ! -r "$launcher" ]; then
    echo "bench/jvm_flags.sh: cannot read $launcher" >&2
    return 2
  fi
  while IFS= read -r line; do
    if [ $inside = 0 ] && [[ "$line" == opts=\(* ]]; then
      inside=1
      line="${line#opts=(}"
    fi
    if [ $inside = 1 ]; then
      line="${line#"${line%%[![:space:]]*}"}"
      if [[ "$line" == *\) ]]; then
        body+=" ${line%)}"
        inside=2
        break
      fi
      body+=" $line"
    fi
  done <"$launcher"
  read -r -a jvm_flags <<<"$body"
  if [ $inside != 2 ] || [ ${#jvm_flags[@]} = 0 ]; then
    echo "bench/jvm_flags.sh: no opts=(...) list of JVM flags in $launcher" >&2
    return 2
  fi
  for f in "${jvm_flags[@]}"; do
    if [[ "$f" != -* || "$f" == *[\"\'\$]* ]]; then
      echo "bench/jvm_flags.sh: '$f' in $launcher's opts=(...) is not a plain JVM flag" >&2
      return 2
    fi
  done
}

jvm_flags=()
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  gpusched_jvm_flags "${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/gpusched}"
  printf '%s\n' "${jvm_flags[@]}"
else
  gpusched_jvm_flags "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/gpusched" || return 2
fi
