# Sourced by bench scripts that time a command from bash: elapsed_ms T0 T1 prints the milliseconds between
# two readings of bash's $EPOCHREALTIME (one decimal). Read both around the command and nothing else runs in
# between: a timer that starts a process (date, python3 -c) adds that process's start to every figure (about
# 180 ms for python3 here, which lab_scale.sh's queue and --version rows carried until 2026-11-26).
elapsed_ms() {
  local a=${1/[.,]/} b=${2/[.,]/}
  a=$((10#$a)); b=$((10#$b))
  printf '%d.%d\n' $(((b - a) / 1000)) $(((b - a) % 1000 / 100))
}
