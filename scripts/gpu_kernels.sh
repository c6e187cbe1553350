#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: kernel GPU tests, compute-sanitizer memcheck + racecheck on small launches of every
# kernel, and the kernel benchmarks; logs and benchmark JSON into $OUT (one tarball, kernels_gpu.tar.gz).
#
#   scripts/gpu_kernels.sh [BIN_DIR]
# BIN_DIR holds kernels_gpu_test and attnscope_bench_kernels (default: build-kernels, where CMake puts
# them) plus any shared libraries the binaries need there (libbenchmark built elsewhere).
# Env: OUT (default ./out), REPS (benchmark repetitions, default 5), BENCH_FILTER (default: all),
#      SKIP_TESTS=1, SKIP_SANITIZER=1, SKIP_BENCH=1, SANITIZE_FILTER (gtest filter, default Sanitize.SmallEveryKernel),
#      TEST_TIMEOUT / SANITIZER_TIMEOUT / BENCH_TIMEOUT (seconds, default 150 / 100 / 240).
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

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  echo "== gpu tests"
  timeout "${TEST_TIMEOUT:-150}" "$TEST" --gtest_color=no >"$LOG/gpu_test.log" 2>&1
  rc=$?
  grep -E "^\[ +(OK|FAILED|PASSED) " "$LOG/gpu_test.log"
  [ $rc -eq 0 ] || { echo "gpu tests FAILED (exit $rc)"; tail -20 "$LOG/gpu_test.log"; status=1; }
fi

if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool (${SANITIZE_FILTER:-Sanitize.SmallEveryKernel})"
    timeout "${SANITIZER_TIMEOUT:-100}" compute-sanitizer --tool "$tool" --error-exitcode 3 "$TEST" \
      --gtest_filter="${SANITIZE_FILTER:-Sanitize.SmallEveryKernel}" --gtest_color=no \
      >"$LOG/sanitizer_$tool.log" 2>&1
    rc=$?
    tail -3 "$LOG/sanitizer_$tool.log"
    [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
  done
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== benchmarks"
  timeout "${BENCH_TIMEOUT:-240}" stdbuf -oL "$BENCH" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
    ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} \
    --benchmark_out="$LOG/kernels_bench.json" --benchmark_out_format=json >"$LOG/bench.log" 2>&1
  grep -E "median" "$LOG/bench.log" | sed -E 's/ +/ /g'
  # A second benchmark binary (an experiment built with other flags), tiled benchmarks only.
  if [ -n "${BENCH2:-}" ] && [ -x "$BIN/$BENCH2" ]; then
    echo "== benchmarks of $BENCH2 (BM_Attention tiled only)"
    timeout 120 "$BIN/$BENCH2" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
      --benchmark_filter='BM_Attention/naive:0' \
      --benchmark_out="$LOG/kernels_bench_$BENCH2.json" --benchmark_out_format=json >"$LOG/bench_$BENCH2.log" 2>&1
    grep -E "median" "$LOG/bench_$BENCH2.log" | sed -E 's/ +/ /g'
  fi
fi

tar -czf "$OUT/kernels_gpu.tar.gz" -C "$OUT" kernels && rm -rf "$LOG"
exit $status
