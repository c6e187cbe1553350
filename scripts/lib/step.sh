# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU call scripts. One step of a call, logged under $OUT:
#   step NAME LIMIT_S COMMAND ARGS...  -> $OUT/NAME.log (stdout and stderr), $OUT/NAME.rc, a line in
#   $OUT/commands.txt with the time and the command, and "HH:MM:SS NAME rc=N" on stdout.
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
