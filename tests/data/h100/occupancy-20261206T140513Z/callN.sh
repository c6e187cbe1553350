#!/usr/bin/env bash
# The issue rate against warps per sub-partition: attnscope-microbench's warp_step and warp_step_occupancy
# (branch microbench-issue-rate, fea2433: the warp_step loop at 1-8 CTAs of 4 warps per SM, the tiled
# kernel's shape where it fits and a 64-register shape to 8), with the loops' SASS.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/occupancy-$stamp
mkdir -p "$OUT"
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/machine.txt"
tar -xzf .device/microbench-occupancy.tar.gz -C .device
echo "$(date -u +%H:%M:%S) microbench: gpu_microbench.sh --only warp_step,warp_step_occupancy" >> "$OUT/commands.txt"
OUT="$OUT/microbench" timeout 120 bash .device/microbench/gpu_microbench.sh --only warp_step,warp_step_occupancy > "$OUT/microbench.log" 2>&1
echo $? > "$OUT/microbench.rc"; echo "microbench rc=$(cat $OUT/microbench.rc)"
tail -40 "$OUT/microbench/summary.txt" 2>/dev/null
cp .device/callN.sh "$OUT/"
bring_back "$OUT" occN
