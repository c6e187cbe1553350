#!/usr/bin/env bash
# On an H200: the backward pass's call (callZ.sh). Otherwise: Nsight Compute's warp-state, instruction and
# scheduler sections of the Hopper kernel's d 64 default and its persistent build at N 16384 (the persistent one
# ran 7 % slower there), from the bench binary of revisionS.txt.
set -u -o pipefail
cd "$(dirname "$0")/.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then exec env BUDGET=${BUDGET:-540} bash .device/callZ.sh; fi
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-d64-ncu-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkS.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/checkP/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; cat .device/revisionS.txt; } | tee "$OUT/machine.txt"
for ps in 0 1; do
  echo "ncu ... ps:$ps" >> "$OUT/commands.txt"
  timeout 120 ncu --section WarpStateStats --section InstructionStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section LaunchStats --cache-control all --clock-control none -k regex:hopper_attention_kernel -c 1 \
    .device/checkP/attnscope_bench_kernels \
    --benchmark_filter="BM_Hopper/bf16:0/d:64/N:16384/causal:0/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/ps:$ps/" \
    --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$OUT/ncu_ps$ps.log" 2>&1
  echo "ps:$ps rc=$?"
done
grep -hE "hopper_attention_kernel|Duration|Stall|Issued|Eligible|Active Warps|Executed Ipc|Warp Cycles|Instructions" "$OUT"/ncu_ps*.log | cut -c1-140 | head -70
cp .device/callW2.sh "$OUT/"
bring_back "$OUT" ncuW2
