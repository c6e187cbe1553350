#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Strong scaling of `mpirun -n N attnscope sweep` on one machine's CPUs (no GPU used): a cycle-model sweep
# of 7,680 points (8 heads), every feasible one (about 7,400) through the cycle model. The points differ in cost by
# ~250x (N 256 .. 4K, Br 32 .. 256, 33 .. 264 SMs). Runs it at 1, 2, 4, 8 and 16 ranks, one thread each
# (about 2 minutes at 1 rank on the GPU machine's CPU), and writes tests/data/bench/sweep_scaling.json: wall seconds per rank count,
# speedup and parallel efficiency (speedup / ranks) against the first, the host, and whether every report
# was byte-identical to the first one (SOURCE_DATE_EPOCH fixes the report's date); and the chart
# docs/screenshots/sweep-scaling.svg.
#
#   cmake --preset mpi && cmake --build --preset mpi --target attnscope     # OpenMPI: scripts/install_deps.sh
#   scripts/sweep_scaling.sh build/mpi/cli/attnscope [RANKS...]             # default ranks: 1 2 4 8 16
# On a machine without this OpenMPI (the GPU machine), pack it first and point MPI_BUNDLE at the copy:
#   scripts/pack_openmpi.sh .device/mpi build/ci/cli/attnscope   # here
#   MPI_BUNDLE=.device/mpi scripts/sweep_scaling.sh ...            # there
# CONTROL=1 also runs, for each rank count N > 1, the same sweep as N independent processes without MPI
# (`--shard i/N`, each pinned to its own CPU; a cycle sweep's shards are interleaved points, so they are
# balanced): what the machine gives this very work with nothing shared, against which the MPI run is judged.
# ATTNSCOPE_SWEEP_RANK_STATS=1 makes every rank print its busy time (stderr, kept in $LOG_DIR if set).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/mpi/cli/attnscope}"
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2 4 8 16)
work="$(mktemp -d)"
if [ -n "${MPI_BUNDLE:-}" ]; then
  # shellcheck source=/dev/null
  source "$MPI_BUNDLE/env.sh"
fi
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1764720000
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers run as root
args=(sweep --kernel tiled --heads "${HEADS:-8}" --seq "${SEQ:-256,512,1K,2K,4K}" --head-dim 64,128 --br 32,64,128,256
      --bc 16,32,64,128 --warps 1,2 --stages 1,2,3,4 --smem 227K --sms 33,66,99,132,198,264 --fidelity cycle
      --max-points 0 --no-progress -j 1)
rows=()
cores=$(lscpu -p=core,socket | grep -v '^#' | sort -u | wc -l)
json_out=${JSON_OUT:-tests/data/bench/sweep_scaling.json}
svg_out=${SVG_OUT:-docs/screenshots/sweep-scaling.svg}
base=""
for n in "${ranks[@]}"; do
  start=$(date +%s.%N)
  bind=(--bind-to core)  # one rank per physical core; hardware threads once the ranks outnumber the cores
  [ "$n" -le "$cores" ] || bind=(--use-hwthread-cpus --bind-to hwthread)
  [ "$n" -le "$(nproc)" ] || bind=(--oversubscribe --bind-to none)  # more ranks than CPUs: a smoke test
  # The same output path every time (the report records its command line), moved aside after.
  mpirun "${bind[@]}" -n "$n" "$bin" "${args[@]}" -o "$work/sweep.json" >/dev/null \
    2> >(tee "${LOG_DIR:-$work}/ranks-$n.log" >&2)
  end=$(date +%s.%N)
  control=""
  if [ "${CONTROL:-0}" = 1 ] && [ "$n" -gt 1 ] && [ "$n" -le "$(nproc)" ]; then
    cstart=$(date +%s.%N)
    for i in $(seq 0 $((n - 1))); do
      taskset -c "$i" "$bin" "${args[@]}" --shard "$i/$n" -o "$work/shard$i.json" >/dev/null 2>&1 &
    done
    wait
    cend=$(date +%s.%N)
    control=$(awk -v a="$cstart" -v b="$cend" 'BEGIN{printf ", \"independent_shards_wall_s\": %.3f", b - a}')
    rm -f "$work"/shard*.json
  fi
  mv "$work/sweep.json" "$work/r$n.json"
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN{print b - a}')
  [ -n "$base" ] || base="$wall"
  same=false
  cmp -s "$work/r$n.json" "$work/r${ranks[0]}.json" && same=true
  rows+=("$(printf '{"ranks": %d, "wall_s": %.3f, "speedup": %.3f, "efficiency": %.3f, "report_identical_to_first": %s%s}' \
    "$n" "$wall" "$(awk -v b="$base" -v w="$wall" 'BEGIN{print b / w}')" "$(awk -v b="$base" -v w="$wall" -v n="$n" -v r="${ranks[0]}" 'BEGIN{print b / w / n * r}')" "$same" "$control")")
  echo "sweep_scaling: $n rank(s): ${wall} s" >&2
done
read -r points feasible < <(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['sweep']; print(len(s), sum(p['feasible'] for p in s))" "$work/r${ranks[0]}.json")
mkdir -p "$(dirname "$json_out")" "$(dirname "$svg_out")"
{
  echo "{"
  echo "  \"what\": \"mpirun -n N attnscope ${args[*]}\","
  echo "  \"points\": $points, \"cycle_model_points\": $feasible,"
  echo "  \"host\": \"$(hostname)\", \"cpus\": $(nproc), \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"cpu\": \"$(lscpu | sed -n 's/^Model name: *//p' | head -1)\", \"threads_per_core\": $(lscpu | sed -n 's/^Thread(s) per core: *//p' | head -1),"
  echo "  \"mpirun\": \"$(mpirun --version 2>&1 | head -1)\","
  echo "  \"git_revision\": \"${BUILD_REVISION:-$(git rev-parse --short HEAD)}\", \"physical_cores\": $cores,"
  echo "  \"runs\": ["
  for i in "${!rows[@]}"; do
    sep=","; [ "$i" -eq $((${#rows[@]} - 1)) ] && sep=""
    echo "    ${rows[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} > "$json_out"
cat "$json_out"
# The chart for docs/guide.md: speedup against ranks, with the ideal line and the 0.85-efficiency line.
python3 - "$json_out" "$svg_out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
n_max = max(r["ranks"] for r in runs)
W, H, L, B = 480, 320, 50, 40
x = lambda n: L + (W - L - 20) * n / n_max
y = lambda s: H - B - (H - B - 20) * s / n_max
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<line x1="{L}" y1="{H-B}" x2="{W-20}" y2="{H-B}" stroke="black"/><line x1="{L}" y1="{H-B}" x2="{L}" y2="20" stroke="black"/>',
       f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(n_max)}" y2="{y(n_max)}" stroke="#bbb" stroke-dasharray="4"/>',
       f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(n_max)}" y2="{y(0.85*n_max)}" stroke="#e99" stroke-dasharray="2"/>',
       '<polyline fill="none" stroke="#36c" stroke-width="2" points="' +
       " ".join(f'{x(r["ranks"]):.1f},{y(r["speedup"]):.1f}' for r in runs) + '"/>']
for r in runs:
    out.append(f'<circle cx="{x(r["ranks"]):.1f}" cy="{y(r["speedup"]):.1f}" r="3" fill="#36c"/>')
    out.append(f'<text x="{x(r["ranks"]):.1f}" y="{H-B+14}" text-anchor="middle">{r["ranks"]}</text>')
    out.append(f'<text x="{x(r["ranks"])+4:.1f}" y="{y(r["speedup"])-6:.1f}">{r["efficiency"]:.2f}</text>')
out.append(f'<text x="{W/2}" y="{H-8}" text-anchor="middle">MPI ranks (labels: parallel efficiency)</text>')
out.append(f'<text x="12" y="{H/2}" transform="rotate(-90 12 {H/2})" text-anchor="middle">speedup over 1 rank</text>')
out.append(f'<text x="{L+6}" y="30">{d["points"]}-point cycle sweep, {d["host"]}; dashed: ideal, red: 0.85</text>')
out.append('</svg>')
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("sweep_scaling: wrote", sys.argv[2])
PY
