#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end check of one build on a GPU machine: the kernels' GPU tests, compute-sanitizer memcheck and
# racecheck on small launches of every kernel, the profiler's GPU tests, and the quick start's main job
# (`attnscope run`: naive and tiled kernels profiled under CUPTI beside the model) on the default workload.
# Logs and reports go to $OUT/check.tar.xz.part* (scripts/lib/bring_back.sh); a summary table is printed last.
#
# Here (no GPU): build the `gpu` preset and pack what travels (the carry limit is 64 MiB):
#   scripts/gpu_check.sh --pack            -> .device/check.tar.gz (binaries, libfmt, libbenchmark)
# There (the device tool's run, carry [".device"]):
#   tar -xzf .device/check.tar.gz && scripts/gpu_check.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
if [ "${1:-}" = "--pack" ]; then
  set -e
  b=build/gpu
  rm -rf .device/check && mkdir -p .device/check/lib
  for f in cli/attnscope tests/kernels/kernels_gpu_test tests/profiler/profiler_gpu_tests bench/attnscope_bench_kernels; do
    strip -o ".device/check/$(basename "$f")" "$b/$f"
  done
  for lib in libfmt.so libbenchmark.so; do
    path=$(ldd .device/check/attnscope_bench_kernels .device/check/attnscope | awk -v l="$lib" '$1 ~ l {print $3}' | head -1)
    [ -n "$path" ] && cp -L "$path" .device/check/lib/
  done
  tar -czf .device/check.tar.gz -C .device check && rm -rf .device/check
  ls -la .device/check.tar.gz
  exit 0
fi
FINAL=${OUT:-$PWD/out}
OUT=$FINAL/check  # packed into $FINAL/check.tar.xz.part* at the end (few files travel back)
bin=.device/check
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus  # the binaries were built elsewhere
mkdir -p "$OUT"
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } | tee "$OUT/machine.txt"
step() {  # name, timeout, command...: exit code into $OUT/name.rc (steps may run in the background)
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"
}
# Correctness first, the sanitizers beside it (small launches), then the profiler and the main job.
step kernels_gpu_tests 240 "$bin/kernels_gpu_test" --gtest_color=no &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" \
  --gtest_filter='Sanitize.*' --gtest_color=no &
wait
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" \
  --gtest_filter='Sanitize.*' --gtest_color=no
step profiler_gpu_tests 240 "$bin/profiler_gpu_tests" --gtest_color=no
step run 300 "$bin/attnscope" run --out "$OUT/run"
step bench 240 "$bin/attnscope_bench_kernels" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_CopyBandwidth|BM_Attention/naive:1/bf16:0/d:64/N:4096/causal:0/|BM_Attention/naive:0/bf16:0/d:64/N:4096/causal:0/H:32/Br:128/Bc:64/W:4/' \
  --benchmark_out="$OUT/bench.json" --benchmark_out_format=json
echo
echo "== summary (exit codes; logs in \$OUT)"
for s in kernels_gpu_tests memcheck racecheck profiler_gpu_tests run bench; do
  printf '%-20s %s\n' "$s" "$(cat "$OUT/$s.rc" 2>/dev/null || echo 'not run')"
done
grep -E "^\[  (PASSED|FAILED) " "$OUT/kernels_gpu_tests.log" "$OUT/profiler_gpu_tests.log"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" "$OUT/racecheck.log"
sed -n '1,16p' "$OUT/run.log"
grep -E "median" "$OUT/bench.log" | sed -E 's/ +/ /g'
bring_back "$OUT" check
