#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Why a CPU-bound program stops scaling on a machine: controls for the MPI sweep's parallel efficiency
# (scripts/sweep_scaling.sh). Writes one JSON object per line to stdout, progress to stderr.
#
#   cc -O2 -o cpu_clock_probe scripts/cpu_clock_probe.c
#   scripts/cpu_scaling_probe.sh ./cpu_clock_probe path/to/attnscope > probe.jsonl
#
# 1. The machine as the guest sees it (lscpu, caches, topology files).
# 2. cpu_clock_probe: a dependent chain (latency-bound) and eight independent chains (issue-bound) on 1 and
#    on every CPU at once; a pointer chase through 32 MiB per copy on 1 and on every CPU (shared L3 / memory).
# 3. Sibling search: the issue-bound loop on CPU 0 and CPU j at once, for every j. A hypervisor may hide SMT
#    (the guest sees one thread per core); two vCPUs that are threads of one physical core then each run the
#    issue-bound loop at about half speed, where two vCPUs on separate cores run at full speed.
# 4. The sweep itself without MPI: N independent copies of one small cycle-model sweep (`attnscope sweep
#    -j 1`), each pinned to its own CPU, started together: the per-copy wall time against one copy alone.
#    MPI's dispatch and gather are absent, so what remains is the machine.
set -euo pipefail
probe="${1:?cpu_clock_probe binary}"
bin="${2:?attnscope binary}"
cpus=$(nproc)
last=$((cpus - 1))

emit() { printf '%s\n' "$1"; }
emit "$(printf '{"what": "machine", "cpus": %d, "lscpu": %s}' "$cpus" \
  "$(lscpu | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')")"
emit "$(printf '{"what": "topology", "thread_siblings": %s, "core_id": %s}' \
  "$(cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list 2>/dev/null | tr '\n' ' ' | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')" \
  "$(cat /sys/devices/system/cpu/cpu*/topology/core_id 2>/dev/null | tr '\n' ' ' | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')")"

echo "cpu_scaling_probe: probe loops" >&2
for mode in chain ilp; do
  arg=""; [ "$mode" = ilp ] && arg=ilp
  for n in 1 "$cpus"; do emit "$("$probe" "$n" $arg)"; done
done
for n in 1 "$cpus"; do emit "$("$probe" "$n" 32)"; done

echo "cpu_scaling_probe: sibling search" >&2
for j in $(seq 1 "$last"); do emit "$(PROBE_CPUS=0,$j "$probe" 2 ilp)"; done

echo "cpu_scaling_probe: independent sweeps" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sweep=(sweep --kernel tiled --heads 8 --seq 1K,4K --head-dim 64,128 --br 64,128 --bc 32,64 --warps 1,2
       --stages 2,3 --smem 227K --sms 66,132 --fidelity cycle --max-points 0 --no-progress -j 1)
run_copies() {  # label, then the CPUs to pin one copy each to
  local label="$1"; shift
  local pids=() i=0
  for c in "$@"; do
    ( s=$(date +%s.%N); taskset -c "$c" "$bin" "${sweep[@]}" -o "$work/s$i.json" >/dev/null 2>&1
      e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f\n", b - a}' > "$work/t$i" ) &
    pids+=($!); i=$((i + 1))
  done
  wait "${pids[@]}"
  local times
  times=$(cat "$work"/t* | sort -n | tr '\n' ',' | sed 's/,$//')
  rm -f "$work"/t*
  emit "$(printf '{"what": "independent_sweeps", "label": "%s", "cpus": "%s", "copies": %d, "wall_s_sorted": [%s]}' \
    "$label" "$*" "$#" "$times")"
}
run_copies one 0
run_copies one 0
run_copies two 0 1
run_copies half $(seq 0 $((cpus / 2 - 1)))
run_copies all $(seq 0 "$last")
echo "cpu_scaling_probe: done" >&2
