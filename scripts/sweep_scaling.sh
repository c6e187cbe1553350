#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Strong scaling of `mpirun -n N attnscope sweep` on one machine's CPUs (no GPU used): a cycle-model sweep
# of 6,144 points, every feasible one (about 5,900) through the cycle model. The points differ in cost by
# ~100x (N 256 .. 2K, Br 32 .. 256, 33 .. 264 SMs). Runs it at 1, 2, 4, 8 and 16 ranks, one thread each
# (about 8 minutes at 1 rank), and writes tests/data/bench/sweep_scaling.json: wall seconds per rank count,
# speedup and parallel efficiency (speedup / ranks) against the first, the host, and whether every report
# was byte-identical to the first one (SOURCE_DATE_EPOCH fixes the report's date); and the chart
# docs/screenshots/sweep-scaling.svg.
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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # containers run as root
args=(sweep --kernel tiled --heads 4 --seq 256,512,1K,2K --head-dim 64,128 --br 32,64,128,256
      --bc 16,32,64,128 --warps 1,2 --stages 1,2,3,4 --smem 227K --sms 33,66,99,132,198,264 --fidelity cycle
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
  echo "  \"points\": 6144, \"cycle_model_points\": $feasible,"
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
# The chart for docs/guide.md: speedup against ranks, with the ideal line and the 0.85-efficiency line.
python3 - tests/data/bench/sweep_scaling.json docs/screenshots/sweep-scaling.svg <<'PY'
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
