#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: kernel GPU tests, compute-sanitizer memcheck + racecheck on small launches of every
# kernel, and the kernel benchmarks; logs and benchmark JSON into $OUT (one tarball, kernels_gpu.tar.gz).
#
#   scripts/gpu_kernels.sh [BIN_DIR]
# BIN_DIR holds kernels_gpu_test and attnscope_bench_kernels (default: build-kernels, where CMake puts
# them) plus any shared libraries the binaries need there (libbenchmark built elsewhere).
# Env: OUT (default ./out), REPS (benchmark repetitions, default 5), BENCH_FILTER (default: all),
#      SKIP_SANITIZER=1, SKIP_BENCH=1.
set -u -o pipefail
BIN=${1:-build-kernels}
OUT=${OUT:-$PWD/out}
REPS=${REPS:-5}
mkdir -p "$OUT/kernels"
LOG=$OUT/kernels
TEST=$BIN/kernels_gpu_test
BENCH=$BIN/attnscope_bench_kernels
[ -x "$TEST" ] || TEST=$BIN/tests/kernels/kernels_gpu_test
[ -x "$BENCH" ] || BENCH=$BIN/bench/attnscope_bench_kernels
export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; git rev-parse HEAD 2>/dev/null; } \
  | tee "$LOG/machine.txt"

echo "== gpu tests"
timeout 150 "$TEST" --gtest_color=no 2>&1 | tee "$LOG/gpu_test.log" | grep -E "^\[  (FAILED|PASSED) |error|seed" | head -50
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "gpu tests FAILED"; status=1; }

if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool (Sanitize.SmallEveryKernel)"
    timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 3 "$TEST" --gtest_filter='Sanitize.*' --gtest_color=no \
      >"$LOG/sanitizer_$tool.log" 2>&1
    rc=$?
    tail -3 "$LOG/sanitizer_$tool.log"
    [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
  done
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== benchmarks"
  timeout 240 "$BENCH" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
    ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} \
    --benchmark_out="$LOG/kernels_bench.json" --benchmark_out_format=json 2>&1 | tee "$LOG/bench.log" | grep -E "median|Copy" 
fi

tar -czf "$OUT/kernels_gpu.tar.gz" -C "$OUT" kernels && rm -rf "$LOG"
exit $status
