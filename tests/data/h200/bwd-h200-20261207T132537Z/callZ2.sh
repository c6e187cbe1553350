#!/usr/bin/env bash
# (callZ2: callZ.sh cut to the GPU tests, sanitizers, PyTorch's backward timings, ours and the ratios, for a
# short device budget.)
# The backward pass on the H200 (main's kernels, the same build as the H100 calls of 2026-12-06 measured):
# backward and mask GPU tests, memcheck and racecheck; PyTorch's FlashAttention-2 and cuDNN backward, then
# ours (llm-4k fp16/bf16 d 64/128 causal or not, the Figure 2 shape fwd+bwd), the ratios; Nsight Compute's DRAM
# bytes of one Figure 2 training step per implementation; the llm-4k training step under CUPTI; the backward
# matrix (90 points) with tile windows as far as the call's time goes.
# Pack here: .device/checkZ.tar.xz (kernels_gpu_test, attnscope_bench_kernels, attnscope, lib/), revisionZ.txt.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/bwd-h200-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkZ.tar.xz -C .device
bin=.device/checkZ
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; cat .device/revisionZ.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
cuobjdump -res-usage "$bin/kernels_gpu_test" >"$OUT/res_usage.txt" 2>&1
step kernels_gpu_tests 200 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='TiledBackward.*:Masks.*:Backward.*:NaiveBackward.*' &
step memcheck 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
step racecheck 200 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
wait
step sdpa 200 "$PY" bench/sdpa_backward.py --time "$OUT/bench_backward_pytorch.json"
step bench 200 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Backward/naive:0/.*/N:4096/.*/H:32/|BM_Backward/naive:[01]/bf16:0/d:64/N:1024/causal:0/H:16/B:64/Bc:0/Br:0/step:1' \
  --benchmark_out="$OUT/bench_backward_ours.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_backward.py --merge "$OUT/bench_backward_pytorch.json" "$OUT/bench_backward_ours.json" "$OUT/bench_backward.json"
cat "$OUT/ratios.log"
grep -E "step:1" "$OUT/bench.log" | grep median
echo "== summary"
for s in kernels_gpu_tests memcheck racecheck sdpa bench ratios; do
  printf '%-24s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd|naive_bwd" -A1 "$OUT/res_usage.txt" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
cp .device/callZ.sh .device/callZ2.sh "$OUT/"
bring_back "$OUT" bwdZ
