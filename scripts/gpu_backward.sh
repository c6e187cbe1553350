#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The backward pass on a GPU machine: the kernels' GPU tests (all of them: forward and backward),
# compute-sanitizer memcheck and racecheck on small launches of every backward kernel, registers and spills
# of every kernel (cuobjdump), the backward benchmarks with PyTorch's FlashAttention-2 and cuDNN backward
# timed the same way right after (bench/sdpa_backward.py: ratios in one JSON), and Nsight Compute's DRAM
# bytes and durations of one training step (forward + backward) of the naive and the tiled kernels at the
# FlashAttention paper's Figure 2 shape (B=64, H=16, N=1024, d=64, fp16).
#
# Here (no GPU): cmake --preset gpu && cmake --build --preset gpu, then scripts/gpu_check.sh --pack.
# There (the device tool's run, carry [".device"]):
#   tar -xzf .device/check.tar.gz -C .device && bash scripts/gpu_backward.sh
# Everything lands in $OUT/backward.tar.xz.part* (scripts/lib/bring_back.sh); a summary is printed last. TESTS (a gtest filter) picks the GPU
# tests; SKIP (a space-separated list of step names, e.g. "bench_long ncu") leaves steps out.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/backward
bin=.device/check
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus  # the binaries were built elsewhere
PY=${PY:-/opt/torch/.venv/bin/python}
[ -x "$PY" ] || PY=python3
mkdir -p "$OUT"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
  echo "git $(git rev-parse HEAD 2>/dev/null || echo unknown)"
} | tee "$OUT/machine.txt"
step() {  # name, timeout, command...: exit code into $OUT/name.rc
  local name=$1 limit=$2
  shift 2
  for skip in ${SKIP:-}; do [[ $name == $skip* ]] && return 0; done
  echo "== $name: $*" | tee -a "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"
}
cuobjdump -res-usage "$bin/kernels_gpu_test" >"$OUT/res_usage.txt" 2>&1
# Correctness: the GPU tests (TESTS, a gtest filter: all by default) with both sanitizers beside them.
step kernels_gpu_tests 300 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter="${TESTS:-*}" &
step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" \
  --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
step racecheck 300 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" \
  --gtest_filter='Sanitize.SmallBackward' --gtest_color=no &
wait
# The profiler on the backward: its GPU tests, then a training step (forward and backward, naive and tiled)
# at llm-4k measured kernel by kernel under CUPTI and joined with the model.
step profiler_gpu_tests 200 "$bin/profiler_gpu_tests" --gtest_color=no
step profile_both 200 "$bin/attnscope" profile --pass both -o "$OUT/llm-4k-training-step.json"
# Speed: PyTorch's backward first (its own JSON), then attnscope's llm-4k and Figure 2 shape (5 repetitions),
# the 131072-token training steps (3), and the ratios (no GPU).
step sdpa 200 "$PY" bench/sdpa_backward.py --time "$OUT/bench_backward_pytorch.json"
step bench 300 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_CopyBandwidth|BM_Backward/.*/N:(1024|4096)/' \
  --benchmark_out="$OUT/bench_backward_ours.json" --benchmark_out_format=json
step bench_long 200 "$bin/attnscope_bench_kernels" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Backward/.*/N:131072/' \
  --benchmark_out="$OUT/bench_backward_long.json" --benchmark_out_format=json
step ratios 60 "$PY" bench/sdpa_backward.py --merge "$OUT/bench_backward_pytorch.json" \
  "$OUT/bench_backward_ours.json" "$OUT/bench_backward.json"
# One training step of each implementation under Nsight Compute: the first launches of the benchmark are the
# forward (once) and the warm-up backward; caches flushed before each kernel (ncu's default).
for impl in 0 1; do
  n=$([ "$impl" = 0 ] && echo 4 || echo 8)
  step "ncu_fig2_$impl" 120 ncu --csv --page raw -c "$n" -k 'regex:^(tiled|naive)' \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_bytes.sum \
    "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01s \
    --benchmark_filter="BM_Backward/naive:$impl/bf16:0/d:64/N:1024/causal:0/H:16/B:64/Bc:0/Br:0/step:1"
done
# Where the tiled backward's time goes at llm-4k fp16 d 64 (one launch of the main kernel).
step ncu_bwd_detail 120 ncu -k regex:tiled_bwd_kernel -c 1 --section SpeedOfLight --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section Occupancy "$bin/attnscope_bench_kernels" --benchmark_min_time=0.01s \
  --benchmark_filter='BM_Backward/naive:0/bf16:0/d:64/N:4096/causal:0/H:32/B:1/Bc:128/Br:64/step:0'
echo
echo "== summary (exit codes; logs in backward.tar.xz.part*)"
for s in kernels_gpu_tests memcheck racecheck profiler_gpu_tests profile_both sdpa bench bench_long ratios ncu_fig2_0 ncu_fig2_1 ncu_bwd_detail; do
  printf '%-20s %s\n' "$s" "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"
done
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]" "$OUT/kernels_gpu_tests.log" "$OUT/profiler_gpu_tests.log" | head -20
head -40 "$OUT/profile_both.log"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
grep -E "tiled_bwd|naive_bwd" "$OUT/res_usage.txt" -A1 | grep -oE "REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+" | sort | uniq -c
grep -E "^\[ error" "$OUT/kernels_gpu_tests.log" | grep -E "bwd|131072" | sort -t= -k2 -g | tail -6
grep -hE "_median" "$OUT/bench.log" "$OUT/bench_long.log" | sed -E 's/ +/ /g; s/min_time:0.200.//; s/manual_time_median//' | cut -c1-190
grep -hE "ERROR OCCURRED|does not fit" "$OUT/bench_long.log" | cut -c1-300
grep -E " vs " "$OUT/ratios.log"
bring_back "$OUT" backward
