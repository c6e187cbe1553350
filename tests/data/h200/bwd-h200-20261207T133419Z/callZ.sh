#!/usr/bin/env bash
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
for n in 0 1; do c=$([ $n = 0 ] && echo 4 || echo 8)
  step ncu_fig2_$n 60 ncu --csv --page raw -c $c -k 'regex:^(tiled|naive)' --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01 --benchmark_filter="BM_Backward/naive:$n/bf16:0/d:64/N:1024/causal:0/H:16/B:64/Bc:0/Br:0/step:1"
done
K="--keep-tiles windows"
step training_step 100 "$bin/attnscope" profile --preset llm-4k --kernel both --pass both $K -o "$OUT/training-step/llm-4k-training-step.json"
# The backward on 24 fresh shapes (seed: today's UTC date), with the profile binary built at revisionZ's
# second line (same kernels; it adds --matrix fresh-bwd): before the fixed matrix, as far as 200 s go.
xz -dc .device/attnscope-freshbwd.xz > .device/attnscope-freshbwd && chmod +x .device/attnscope-freshbwd
left=$(( ${BUDGET:-575} - SECONDS - 60 )); [ $left -gt 200 ] && left=200
[ $left -gt 40 ] && step fresh_bwd $left .device/attnscope-freshbwd profile --matrix fresh-bwd --out-dir "$OUT/fresh-bwd-$stamp" --deadline-s $(( left - 20 ))
tail -3 "$OUT/fresh_bwd.log" 2>/dev/null
left=$(( ${BUDGET:-575} - SECONDS - 25 ))
[ $left -gt 60 ] && step backward $left "$bin/attnscope" profile --matrix backward $K --out-dir "$OUT/backward" --first-point ${FIRST:-1} --deadline-s $(( left - 15 ))
echo "== summary"
for s in kernels_gpu_tests memcheck racecheck sdpa bench ratios ncu_fig2_0 ncu_fig2_1 training_step fresh_bwd backward; do
  printf '%-24s %s\n' $s "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"; done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd|naive_bwd" -A1 "$OUT/res_usage.txt" | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
tail -3 "$OUT/backward.log"
cp .device/callZ.sh "$OUT/"
bring_back "$OUT" bwdZ
