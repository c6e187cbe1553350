#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Strong scaling of `mpirun -n N attnscope sweep` on one machine's CPUs (no GPU used): a cycle-model sweep of
# 3,072 points, every feasible one through the cycle model (points differ in cost by ~100x: N 256 .. 2K, Br 32
# .. 256, 66 .. 264 SMs), at 1, 2, 4, 8 and 16 ranks, each rank one thread. Writes tests/data/bench/sweep_scaling.json: wall
# seconds per rank count, speedup and parallel efficiency (speedup / ranks) against 1 rank, the host, and
# whether every report was identical to the 1-rank one (SOURCE_DATE_EPOCH fixes the report's date).
#
#   cmake --preset mpi && cmake --build --preset mpi --target attnscope     # OpenMPI: scripts/install_deps.sh
#   scripts/sweep_scaling.sh build/mpi/cli/attnscope [RANKS...]             # default ranks: 1 2 4 8 16
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/mpi/cli/attnscope}"
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2 4 8 16)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1764720000
args=(sweep --kernel tiled --heads 4 --seq 256,512,1K,2K --head-dim 64,128 --br 32,64,128,256
      --bc 16,32,64,128 --warps 1,2 --stages 1,2,3,4 --smem 227K --sms 66,132,264 --fidelity cycle
      --max-points 0 --no-progress -j 1)
rows=()
base=""
for n in "${ranks[@]}"; do
  start=$(date +%s.%N)
  mpirun --bind-to core -n "$n" "$bin" "${args[@]}" -o "$work/r$n.json" >/dev/null
  end=$(date +%s.%N)
  wall=$(echo "$end - $start" | bc -l)
  [ -n "$base" ] || base="$wall"
  same=false
  cmp -s "$work/r$n.json" "$work/r${ranks[0]}.json" && same=true
  rows+=("$(printf '{"ranks": %d, "wall_s": %.3f, "speedup": %.3f, "efficiency": %.3f, "report_identical_to_first": %s}' \
    "$n" "$wall" "$(echo "$base / $wall" | bc -l)" "$(echo "$base / $wall / $n * ${ranks[0]}" | bc -l)" "$same")")
  echo "sweep_scaling: $n rank(s): ${wall} s" >&2
done
feasible=$(python3 -c "import json,sys; print(sum(p['feasible'] for p in json.load(open(sys.argv[1]))['sweep']))" "$work/r${ranks[0]}.json")
mkdir -p tests/data/bench
{
  echo "{"
  echo "  \"what\": \"mpirun -n N attnscope ${args[*]}\","
  echo "  \"points\": 3072, \"cycle_model_points\": $feasible,"
  echo "  \"host\": \"$(hostname)\", \"cpus\": $(nproc), \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"git_revision\": \"$(git rev-parse --short HEAD)\","
  echo "  \"runs\": ["
  for i in "${!rows[@]}"; do
    sep=","; [ "$i" -eq $((${#rows[@]} - 1)) ] && sep=""
    echo "    ${rows[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} > tests/data/bench/sweep_scaling.json
cat tests/data/bench/sweep_scaling.json
